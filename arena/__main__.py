from arena.cli import main

main()
