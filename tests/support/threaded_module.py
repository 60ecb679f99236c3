"""Imported by a fork server in a test: leaves a thread running, so it must not fork."""

import threading

threading.Thread(target=threading.Event().wait, daemon=True).start()
