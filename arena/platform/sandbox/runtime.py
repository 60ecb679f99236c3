"""The files a sandbox can read: one runtime image per machine, held in memory.

A file on disk is a channel between sandboxes that read it: whether a page of it is in
the host's page cache is set by one reader (a read loads it, ``fadvise`` drops it) and
seen by the next (a read of an uncached page takes a hundred times longer; ``mincore``,
``preadv2(RWF_NOWAIT)`` and ``cachestat`` tell it outright). So a sandbox sees no file
on disk. What a bot needs to run, a pruned Python runtime (its interpreter and standard
library), the packages the SDK imports (grpcio, protobuf, their dependencies) and numpy,
the ``arena`` package, a shell with common tools, and the system libraries all of these
load, is copied once per machine into a folder on ``/dev/shm`` (memory, never evicted:
the machine has no swap, and a sandbox cannot reach ``/dev/shm`` or push pages out), and
that folder is shown read only as the sandbox's ``/usr``. The bot's own code is copied
into its sandbox's folder, in memory too. Every page a sandbox can read is always
resident; its residency carries nothing. A page read a moment ago still reads faster
(the CPU's caches, the kernel's lists): sandboxes that must share nothing (the rotations
of a duplicate deal, the seats of one table) run on copies of the image of their own
(``image(copy)``, ``copy_for``).

The image is named by a digest of what went into it; a worker that finds it made uses
it, else builds it in a temporary folder and renames it into place (two workers building
at once waste a copy, never mix one). A new image sweeps older ones away, but never one a
live process uses: each process holds a shared lock on its image's name from the moment
it asks for it (two installations on one machine never pull an image from under each
other's sandboxes).
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from arena.engine.game import MAX_PLAYERS

#: bump when the image's layout changes
FORMAT = 5
PREFIX = "arena-runtime-"
#: an empty file, shown over the host-wide counters of /proc
EMPTY = Path("empty")
#: where the interpreter is inside the sandbox
PYTHON = Path("/usr/bin/python3")
#: the library every program of a sandbox preloads to join threads (``join.c``)
JOIN = Path("/usr/lib/arena/libarena-join.so")
#: the image's folder for shared libraries (the loader's default search path)
LIBRARIES = Path("usr/lib", sysconfig.get_config_var("MULTIARCH") or "")

#: distributions a bot may import, with what they require
DISTRIBUTIONS = ("grpcio", "protobuf", "numpy")
#: programs a bot may run (those this machine has)
TOOLS = (
    "sh", "dash", "bash", "env", "true", "false", "sleep", "cat", "echo", "ls", "cp", "mv",
    "rm", "mkdir", "head", "tail", "wc", "sort", "uniq", "tr", "cut", "grep", "sed", "id",
    "uname", "date", "printf", "test", "timeout", "xargs", "find", "unshare", "setpriv",
)  # fmt: skip
#: libraries no ELF file of the image names: loaded with dlopen (thread cancellation's),
#: or by the programs of bots in other languages (C++'s runtime; node's and the JVM's)
DLOPENED = (
    "libgcc_s.so.1", "libstdc++.so.6", "libm.so.6", "libz.so.1", "libdl.so.2",
    "libpthread.so.0", "librt.so.1",
)  # fmt: skip
#: parts of the standard library a bot never needs
_PRUNED = {
    "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages",
    "__phello__", "pydoc_data",
    # the static library and the makefiles that build extensions against this Python
    Path(sysconfig.get_config_var("LIBPL") or "config").name,
}  # fmt: skip
#: extension modules of the standard library that load a desktop's libraries
_PRUNED_MODULES = ("_tkinter",)
_LDD_LINE = re.compile(r"^\s*(?:(\S+) => )?(/\S+) \(0x")


def scratch() -> Path:
    """Where images are kept: memory (``/dev/shm``) where the machine has it."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir())


#: copies for the seats of tables that are not a duplicate deal's rotation: one per seat
SEAT_COPIES = MAX_PLAYERS


def table_copies(rotation: int | None = None, players: int = 0) -> range:
    """The copies of the image a table's seats may run on, each seat on a copy of its own.
    Seats of one table are alive at the same moment, so no two share a copy (two
    sandboxes that share no page share no futex key, no cache line, no page's state). A
    table that is not a duplicate deal's rotation has copies ``0`` to ``SEAT_COPIES - 1``
    to choose from; the rotations of a duplicate deal (``rotation`` of ``players`` seats)
    must share no page with each other or with other tables either: rotation ``r`` has
    copies ``SEAT_COPIES + r * players`` onwards, one per seat, so a deal of n seats uses
    n x n copies of its own."""
    if rotation is None:
        return range(SEAT_COPIES)
    first = SEAT_COPIES + rotation * players
    return range(first, first + players)


def copy_for(seat: int, rotation: int | None = None, players: int = 0) -> int:
    """The copy a table's ``seat`` runs on when no sandbox is warm yet: its table's
    copies in seat order (:func:`table_copies`)."""
    return table_copies(rotation, players)[seat]


def image(copy: int = 0) -> Path:
    """The image for this installation, built if this machine has none (yet, or any more);
    one process of the machine builds it while the others wait. ``copy`` > 0 is a copy of
    its own (made once, from the first): sandboxes on two copies share no page."""
    first = scratch() / f"{PREFIX}{digest()}"
    root = first if copy == 0 else first.with_name(f"{first.name}.{copy}")
    _hold(first.name)  # before it is looked for: no sweep removes it from now on
    if not (root / "usr").is_dir():
        with open(scratch() / f".{PREFIX}lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (first / "usr").is_dir():
                _build(first)
            if not (root / "usr").is_dir():
                _duplicate(first, root)
    return root


@functools.cache
def digest() -> str:
    """A name for what the image would hold: the interpreter, the distributions' versions
    and the ``arena`` package's files (an editable checkout changes between runs)."""
    parts = [str(FORMAT), sys.version, os.path.realpath(sys.executable)]
    parts += [f"{d.metadata['Name']}=={d.version}" for d in _distributions()]
    for source in _LAYER_SOURCES.values():
        found = source()
        if found is not None:
            info = found.stat()
            parts.append(f"{found}:{info.st_size}:{info.st_mtime_ns}")
    for path in sorted(_package_files()):
        info = path.stat()
        parts.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def layer(name: str, copy: int = 0) -> Path:
    """The runtime of a language whose programs need one (``node``, ``java``: a JVM),
    beside copy ``copy`` of the image: made on first use (a machine that plays no Java
    keeps no JVM), copied per copy as the image is, and swept with it. A sandbox shows
    its ``opt`` folder read only at ``/opt/<name>``."""
    base = image(copy).name.split(".")[0]
    first = scratch() / f"{base}.{name}"
    root = first if copy == 0 else first.with_name(f"{first.name}.{copy}")
    if not (root / "opt").is_dir():
        with open(scratch() / f".{PREFIX}lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (first / "opt").is_dir():
                _build_layer(name, first)
            if not (root / "opt").is_dir():
                _duplicate(first, root)
    return root


def _node() -> Path | None:
    found = shutil.which("node", path="/usr/bin:/bin:/usr/local/bin")
    return Path(found).resolve() if found else None


def _jlink() -> str | None:
    return shutil.which("jlink", path="/usr/bin:/bin")


def _jdk() -> Path | None:
    found = _jlink()
    return Path(found).resolve().parents[1] / "jmods/java.base.jmod" if found else None


#: what each language runtime is made from (None: this machine has none)
_LAYER_SOURCES = {"node": _node, "java": _jdk}


def _fill_layer(name: str, opt: Path) -> None:
    opt.parent.mkdir(parents=True, exist_ok=True)
    if name == "node":
        node = _node()
        if node is None:
            raise OSError("this machine has no node (Debian's nodejs package)")
        _copy(node, opt / "bin/node")
    elif name == "java":
        jlink = _jlink()
        if jlink is None:
            raise OSError("this machine has no JDK (Debian's default-jdk-headless package)")
        subprocess.run(
            [
                jlink,
                "--add-modules",
                "java.base",
                "--strip-debug",
                "--no-man-pages",
                "--no-header-files",
                "--compress=2",
                "--generate-cds-archive",  # a JVM starts in 0.07 s, not 0.13-0.26 s
                "--output",
                str(opt),
            ],
            check=True,
            capture_output=True,
        )
    else:
        raise ValueError(f"no runtime {name!r}: expected one of {', '.join(_LAYER_SOURCES)}")


def _compile_join(target: Path) -> None:
    """The library that joins threads without a shared futex wait (``join.c``), compiled
    with this machine's C compiler; an image without one (no compiler here) leaves
    programs that join threads to fail in their sandbox."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    source = Path(__file__).with_name("join.c")
    subprocess.run(
        [compiler, "-O2", "-shared", "-fPIC", "-o", str(target), str(source)],
        check=True,
        capture_output=True,
    )
    target.chmod(0o755)


def preloaded(root: Path) -> str | None:
    """What a sandbox on image ``root`` preloads (the join library), if it was made."""
    return str(JOIN) if (root / JOIN.relative_to("/")).is_file() else None


def _build_layer(name: str, root: Path) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        _fill_layer(name, staging / "layer/opt")
        for path in [staging / "layer", *(staging / "layer").rglob("*")]:
            if not path.is_symlink():
                path.chmod(0o755 if path.is_dir() or os.access(path, os.X_OK) else 0o644)
        os.rename(staging / "layer", root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _build(root: Path) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        _fill(staging)
        staging.chmod(0o755)
        os.rename(staging, root)
    except OSError:
        if not (root / "usr").is_dir():
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    _sweep(keep=root)


def _duplicate(first: Path, root: Path) -> None:
    """``root``: a copy of the image ``first``, every file a file of its own."""
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        shutil.copytree(first, staging / "image", symlinks=True)
        os.rename(staging / "image", root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fill(root: Path) -> None:
    stdlib = Path(sysconfig.get_path("stdlib"))
    target = root / "usr/lib" / stdlib.name
    _copy_tree(stdlib, target, skip=_PRUNED)
    site = root / _site_inside().relative_to("/")
    for dist in _distributions():
        for file in dist.files or ():
            source = Path(str(dist.locate_file(file)))
            if source.is_file() and ".." not in file.parts:
                _copy(source, site / file)
    _copy_tree(_package_root(), site / "arena", skip={"bench"})
    interpreter = Path(sys.executable).resolve()
    _copy(interpreter, root / PYTHON.relative_to("/"))
    for name in TOOLS:
        found = shutil.which(name, path="/usr/bin:/bin:/usr/sbin:/sbin")
        if found:
            _copy(Path(found).resolve(), root / "usr/bin" / name)
    for library in _closure(_elf_files(root)) | _dlopened():
        _copy(library, root / LIBRARIES / library.name)
    for loader in _loaders(root):
        _copy(Path(loader).resolve(), root / _inside_usr(loader))
    _compile_join(root / JOIN.relative_to("/"))
    (root / EMPTY).touch(mode=0o644)
    localtime = Path("/etc/localtime")
    if localtime.exists():
        _copy(localtime.resolve(), root / "etc/localtime")


@functools.cache
def _site_inside() -> Path:
    """Where this interpreter, run as ``/usr/bin/python3`` in a sandbox, looks for
    packages: a Python built from source reads ``/usr/lib/python3.X/site-packages``,
    Debian's own reads ``dist-packages`` folders. Asked of the interpreter itself."""
    interpreter = str(Path(sys.executable).resolve())
    asked = "import json, site; print(json.dumps(site.getsitepackages(['/usr'])))"
    found = subprocess.run(
        [interpreter, "-I", "-c", asked], capture_output=True, text=True, check=True, env={}
    )
    for path in json.loads(found.stdout):
        if path.startswith("/usr/lib/"):
            return Path(path)
    raise RuntimeError(f"{interpreter} reads no package folder under /usr/lib: {found.stdout}")


def _inside_usr(path: str) -> Path:
    """Where a path of the merged ``/usr`` lives in the image: ``/lib64/x`` → ``usr/lib64/x``."""
    relative = Path(path).relative_to("/")
    return relative if relative.parts[0] == "usr" else Path("usr") / relative


def _distributions() -> list[importlib.metadata.Distribution]:
    """The distributions a bot may import, with those they require (no extras)."""
    found: dict[str, importlib.metadata.Distribution] = {}
    wanted = list(DISTRIBUTIONS)
    while wanted:
        name = _normal(wanted.pop())
        if name in found:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        found[name] = dist
        for requirement in dist.requires or ():
            if "extra ==" not in requirement:
                wanted.append(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0])
    return [found[name] for name in sorted(found)]


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _package_root() -> Path:
    import arena

    return Path(arena.__file__).parent


def _package_files() -> Iterator[Path]:
    for path in _package_root().rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts:
            yield path


def _copy_tree(source: Path, target: Path, skip: set[str]) -> None:
    for folder, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if d not in skip or Path(folder) != source]
        for name in files:
            if name.endswith((".opt-1.pyc", ".opt-2.pyc")) or name.startswith(_PRUNED_MODULES):
                continue
            path = Path(folder) / name
            if path.is_file():
                _copy(path, target / path.relative_to(source))


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        shutil.copy2(source, target)
        mode = 0o755 if os.access(source, os.X_OK) else 0o644
        target.chmod(mode)


def _elf_files(root: Path) -> list[Path]:
    files = []
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with open(path, "rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    files.append(path)
    return files


def _ldd(path: Path) -> tuple[set[Path], set[str]]:
    """The libraries ``path`` loads as this machine resolves them, and its loaders."""
    done = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False)
    libraries: set[Path] = set()
    loaders: set[str] = set()
    for line in done.stdout.splitlines():
        match = _LDD_LINE.match(line)
        if not match:
            continue
        name, resolved = match.groups()
        if name is None:  # the loader: "/lib64/ld-linux-x86-64.so.2 (0x…)"
            loaders.add(resolved)
        else:
            libraries.add(Path(resolved).parent / Path(name).name)
    return libraries, loaders


def _closure(files: Iterable[Path]) -> set[Path]:
    """Every system library the ELF files load (outside the image itself)."""
    found: set[Path] = set()
    for path in files:
        libraries, _ = _ldd(path)
        found |= {library for library in libraries if library.exists()}
    packages = {"site-packages", "dist-packages"}  # copied with their distributions
    return {library for library in found if not packages & set(library.parts)}


def _loaders(root: Path) -> set[str]:
    loaders: set[str] = set()
    for path in (root / PYTHON.relative_to("/"), *(root / "usr/bin").iterdir()):
        loaders |= _ldd(path)[1]
    return loaders


def _dlopened() -> set[Path]:
    found = set()
    for name in DLOPENED:
        for folder in ("/usr/lib", "/lib", f"/usr/{LIBRARIES.relative_to('usr')}"):
            path = Path(folder) / name
            if path.exists():
                found.add(path)
                break
    return found


#: the lock files this process holds shared, by image name (held for its life)
_HELD: dict[str, int] = {}


def _users(name: str) -> Path:
    return scratch() / f".{name}.users"


def _hold(name: str) -> None:
    """Hold a shared lock on image ``name`` for this process's life (and its children's:
    they share the open file). A sweep removes an image only under the exclusive lock, and
    unlinks the lock file under it: a file locked after that is found changed and opened
    again."""
    while name not in _HELD:
        descriptor = os.open(_users(name), os.O_CREAT | os.O_RDWR, 0o600)
        fcntl.flock(descriptor, fcntl.LOCK_SH)
        try:
            same = os.stat(_users(name)).st_ino == os.fstat(descriptor).st_ino
        except FileNotFoundError:
            same = False
        if same:
            _HELD[name] = descriptor
        else:
            os.close(descriptor)


def _sweep(keep: Path) -> None:
    """Remove older images (made by an earlier installation) that no process holds and
    no sandbox has mounted."""
    for users in keep.parent.glob(f".{PREFIX}*.users"):
        name = users.name.removeprefix(".").removesuffix(".users")
        if name == keep.name:
            continue
        try:
            descriptor = os.open(users, os.O_RDWR)
        except FileNotFoundError:
            continue  # another sweep removed it meanwhile
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            continue  # a live process uses it
        try:
            _remove_images(keep.parent, name)
            users.unlink(missing_ok=True)
        finally:
            os.close(descriptor)
    for other in keep.parent.glob(f"{PREFIX}*"):  # images no process of today's made
        name = other.name.split(".")[0]
        if name != keep.name and not _users(name).exists():
            _remove_images(keep.parent, name)


def _remove_images(folder: Path, name: str) -> None:
    """Image ``name`` and its copies, unless a sandbox has one mounted."""
    for image in [folder / name, *folder.glob(f"{name}.*")]:
        if image.is_dir() and not _in_use(image):
            shutil.rmtree(image, ignore_errors=True)


def _in_use(root: Path) -> bool:
    marker = str(root)
    for mounts in Path("/proc").glob("[0-9]*/mountinfo"):
        try:
            if marker.removeprefix(str(root.parent)) in mounts.read_text():
                return True
        except OSError:
            continue
    return False
