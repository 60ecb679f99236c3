"""The game without the platform: in-process play between policies (``selfplay``), the
golden playthroughs (``playthrough``) and the conformance scenarios (``scenarios``)."""
