"""RQ workers that play matches (see issue 4)."""
