"""Fair play at the table: what two bots did to each other, counted as a match goes
(:mod:`arena.fairplay.counting`), and the tests that flag a pair playing as a team
(:mod:`arena.fairplay.report`). docs/fair-play.md has the statistics."""
