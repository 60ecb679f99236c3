"""Point the referee at a bot outside the sandbox: print a fake endpoint, never listen."""

import time

from player import given

print(f"listening on {given('ENDPOINT')}", flush=True)
time.sleep(3600)
