from arena.command import main

main()
