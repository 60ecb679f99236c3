module arena.example/bot

go 1.19
