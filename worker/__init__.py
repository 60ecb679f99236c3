"""RQ workers that play matches: ``arena worker`` (see worker.runner)."""
