// A native-code attacker: raw system calls a sandboxed bot must be refused, each reported
// on stderr as "name=errno" (0: allowed), then a plain legal player of the line protocol.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <linux/futex.h>
#include <sstream>
#include <string>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

static void report(const char* name, long result) {
    std::fprintf(stderr, "%s=%d\n", name, result < 0 ? errno : 0);
}

static void try_open(const char* name, const char* path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) { report(name, -1); return; }
    char buffer[256];
    ssize_t got = read(fd, buffer, sizeof buffer);
    std::fprintf(stderr, "%s=0 bytes=%zd\n", name, got);
    close(fd);
}

static void attack() {
    report("socket_inet", syscall(SYS_socket, AF_INET, SOCK_STREAM, 0));
    report("socket_inet6", syscall(SYS_socket, AF_INET6, SOCK_DGRAM, 0));
    report("ptrace", syscall(SYS_ptrace, 16 /* PTRACE_ATTACH */, 1, 0, 0));
    report("keyctl", syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3, 0));
    report("unshare", syscall(SYS_unshare, 0x40000000 /* CLONE_NEWNET */));
    report("mount", syscall(SYS_mount, "none", "/tmp", "tmpfs", 0, 0));
    unsigned long context = 0;
    report("io_setup", syscall(SYS_io_setup, 1, &context));
    char attr[128] = {0};
    report("perf_event_open", syscall(SYS_perf_event_open, attr, 0, -1, -1, 0));
    report("userfaultfd", syscall(SYS_userfaultfd, 0));
    report("bpf", syscall(SYS_bpf, 0, attr, sizeof attr));
    // a futex keyed by a shared page (no FUTEX_PRIVATE_FLAG): the channel between sandboxes
    int* word = static_cast<int*>(mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
    struct timespec soon = {0, 1000};
    report("futex_shared", syscall(SYS_futex, word, FUTEX_WAIT, 0, &soon, nullptr, 0));
    try_open("open_shadow", "/etc/shadow");
    try_open("open_root", "/root/.bashrc");
    try_open("open_work", "/work");
    try_open("proc_meminfo", "/proc/meminfo");
    try_open("proc_loadavg", "/proc/loadavg");
    try_open("proc_sys", "/proc/sys/kernel/pty/nr");
    // a fork bomb: the sandbox's process limit stops it; only this bot is slowed
    std::vector<pid_t> children;
    for (int i = 0; i < 500; i++) {
        pid_t child = fork();
        if (child == 0) { pause(); _exit(0); }
        if (child < 0) break;
        children.push_back(child);
    }
    std::fprintf(stderr, "forked=%zu\n", children.size());
    for (pid_t child : children) { kill(child, 9); waitpid(child, nullptr, 0); }
    std::fflush(stderr);
}

int main() {
    attack();
    for (std::string line; std::getline(std::cin, line);) {
        std::stringstream words(line);
        std::string word, field, phase, hand = "-", ranks = "-", believe = "0";
        words >> word;
        if (word != "decide") continue;
        while (words >> field) {
            auto at = field.find('=');
            auto key = field.substr(0, at), value = field.substr(at + 1);
            if (key == "phase") phase = value;
            if (key == "hand") hand = value;
            if (key == "play") ranks = value;
            if (key == "believe") believe = value;
        }
        if (phase == "quartets") std::cout << "quartets -" << std::endl;
        else if (ranks != "-") std::cout << "play " << hand.substr(0, hand.find(',')) << " " << ranks.substr(0, ranks.find(',')) << " 1" << std::endl;
        else std::cout << (believe == "1" ? "believe" : "challenge") << std::endl;
    }
}
