from typing import Any, TypeVar

_T = TypeVar("_T", bound=tuple[Any, ...])

def new(cls: type[_T], fields: tuple[Any, ...], /) -> _T: ...
