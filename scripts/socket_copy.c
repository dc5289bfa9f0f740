/*
 * The throughput benchmark's limit (scripts/bench): the same bytes relay takes from the camera,
 * through a plain loopback socket into one file per photo, each fsynced as the spool must.
 * A child process sends COUNT photos of SIZE bytes; this process receives them with 1 MiB reads
 * and fsyncs each file before the next (the plain copy), or with --overlap hands each finished
 * file to a second thread to fsync while the next one is received. Prints the MB/s from the
 * first byte to the last fsync.
 *
 *   socket_copy [--overlap] DIR SIZE COUNT
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1 << 20)

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

/* Finished files waiting for their fsync, handed from the receiving thread to the syncing one. */
static int pending[64];
static int pending_head, pending_tail;
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pending_changed = PTHREAD_COND_INITIALIZER;

static void hand_over(int fd) {
    pthread_mutex_lock(&pending_lock);
    while (pending_tail - pending_head == 64) pthread_cond_wait(&pending_changed, &pending_lock);
    pending[pending_tail++ % 64] = fd;
    pthread_cond_broadcast(&pending_changed);
    pthread_mutex_unlock(&pending_lock);
}

/* Fsyncs and closes handed-over files until it is handed -1. */
static void *sync_files(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&pending_lock);
        while (pending_head == pending_tail) pthread_cond_wait(&pending_changed, &pending_lock);
        int fd = pending[pending_head++ % 64];
        pthread_cond_broadcast(&pending_changed);
        pthread_mutex_unlock(&pending_lock);
        if (fd < 0) return NULL;
        if (fsync(fd) != 0) fail("fsync");
        close(fd);
    }
}

static void send_photos(int port, long size, long count) {
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) fail("connect");
    char *buffer = malloc(CHUNK);
    if (!buffer) fail("malloc");
    for (long i = 0; i < CHUNK; i++) buffer[i] = (char)(i * 2654435761u >> 13);
    for (long photo = 0; photo < count; photo++) {
        for (long left = size; left > 0;) {
            ssize_t n = send(s, buffer, left < CHUNK ? left : CHUNK, 0);
            if (n <= 0) fail("send");
            left -= n;
        }
    }
    close(s);
}

int main(int argc, char **argv) {
    int overlap = argc == 5 && strcmp(argv[1], "--overlap") == 0;
    if (argc != 4 + overlap) {
        fprintf(stderr, "usage: socket_copy [--overlap] DIR SIZE COUNT\n");
        return 2;
    }
    argv += overlap;
    const char *dir = argv[1];
    long size = atol(argv[2]), count = atol(argv[3]);
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof a;
    if (listener < 0 || bind(listener, (struct sockaddr *)&a, sizeof a) != 0 || listen(listener, 1) != 0 ||
        getsockname(listener, (struct sockaddr *)&a, &length) != 0)
        fail("listen");
    pid_t child = fork();
    if (child < 0) fail("fork");
    if (child == 0) {
        close(listener);
        send_photos(ntohs(a.sin_port), size, count);
        _exit(0);
    }
    int connection = accept(listener, NULL, NULL);
    if (connection < 0) fail("accept");
    char *buffer = malloc(CHUNK);
    if (!buffer) fail("malloc");
    pthread_t syncer;
    if (pthread_create(&syncer, NULL, sync_files, NULL) != 0) fail("pthread_create");
    double started = 0;
    char path[4096];
    for (long photo = 0; photo < count; photo++) {
        snprintf(path, sizeof path, "%s/%04ld.jpg", dir, photo);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0) fail("open");
        for (long left = size; left > 0;) {
            ssize_t n = recv(connection, buffer, left < CHUNK ? left : CHUNK, 0);
            if (n <= 0) fail("recv");
            if (started == 0) started = now();
            for (ssize_t done = 0; done < n;) {
                ssize_t w = write(fd, buffer + done, n - done);
                if (w <= 0) fail("write");
                done += w;
            }
            left -= n;
        }
        if (overlap) {
            hand_over(fd);
        } else {
            if (fsync(fd) != 0) fail("fsync");
            close(fd);
        }
    }
    hand_over(-1);
    pthread_join(syncer, NULL);
    double elapsed = now() - started;
    waitpid(child, NULL, 0);
    printf("%.3f\n", (double)size * count / 1e6 / elapsed);
    return 0;
}
