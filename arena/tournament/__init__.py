"""The maths of a tournament, pure: ratings (TrueSkill), ladder opponents
(``matchmaking``), round-robin tables and duplicate groups (``schedule``), secret seeds
(``seeds``) and series of matches between bots (``series``)."""
