"""Says which copy of the runtime image it runs on: the inode of its interpreter."""

import os

from player import Plain, report

report("runtime", os.stat("/usr/bin/python3").st_ino)


class RuntimeCopy(Plain):
    name = "runtime-copy"
