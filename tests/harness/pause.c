/*
 * The pod sandbox's one process, for the test nodes' pause image: it holds the pod's
 * namespaces, reaps the children it inherits, and exits on SIGINT or SIGTERM. Built static
 * by tests/harness/images.py; never committed as a binary.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void leave(int signum) {
    (void)signum;
    _exit(0);
}

static void reap(int signum) {
    (void)signum;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

int main(void) {
    struct sigaction on_stop = {.sa_handler = leave};
    struct sigaction on_child = {.sa_handler = reap, .sa_flags = SA_NOCLDSTOP};
    if (getpid() != 1) {
        return 1; /* only as a sandbox's first process */
    }
    if (sigaction(SIGINT, &on_stop, NULL) || sigaction(SIGTERM, &on_stop, NULL) ||
        sigaction(SIGCHLD, &on_child, NULL)) {
        return 2;
    }
    for (;;) {
        pause();
    }
}
