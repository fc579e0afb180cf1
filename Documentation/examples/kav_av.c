/*
 * kav_av(3): MPI "instant-on" over a named AV. The launcher creates
 * "job42", binds every rank's address to a granted VNI and starts the
 * ranks while it holds the AV open; each rank opens it read-only and
 * finds its peer through map_addr, with no system call.
 *
 *   kav_av [VNI]     the launcher (VNI 100 by default)
 *   kav_av rank R    rank R alone: the AV must exist (a launcher holds
 *                    it, or the administrator pinned it)
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <kav/kav.h>

#define NAME  "job42"
#define RANKS 2

/* Why a call failed: libkav's words for this refusal, else the code's. */
static const char *why(int err)
{
    const char *s = kav_last_error();

    return *s ? s : kav_strerror(err);
}

static int fail(const char *what, int err)
{
    fprintf(stderr, "%s: %s\n", what, why(err));
    return 1;
}

static int open_domain(struct fid_domain **dom)
{
    /* Keys are inserted per AV (fi_av_insert_auth_key). */
    struct fi_domain_attr dattr = { .auth_key_size = FI_AV_AUTH_KEY };
    struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
                            .domain_attr = &dattr };
    int ret = kav_domain_open(&info, dom, NULL);

    return ret ? fail("kav_domain_open", ret) : 0;
}

static int rank(int me)
{
    struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = NAME,
                               .flags = FI_READ, .count = RANKS };
    int peer = (me + 1) % RANKS, bad = 0, ret;
    const fi_addr_t *peers;
    struct fid_domain *dom;
    struct kav_resolved r;
    struct fid_av *av;
    char buf[64];
    size_t len = sizeof(buf);

    if (open_domain(&dom))
        return 1;
    ret = fi_av_open(dom, &attr, &av, NULL);  /* -FI_EAGAIN: unfilled */
    if (ret) {
        fi_close(&dom->fid);
        return fail("fi_av_open(\"" NAME "\", FI_READ)", ret);
    }
    peers = attr.map_addr;                    /* rank r is peers[r] */
    ret = kav_av_resolve(av, peers[peer], &r);
    if (ret)
        bad = fail("kav_av_resolve", ret);
    else
        printf("rank %d: peer %d is %s, vni %u\n", me, peer,
               fi_av_straddr(av, r.addr, buf, &len), r.vni);
    ret = fi_close(&av->fid);
    if (ret == 0)
        ret = fi_close(&dom->fid);
    return ret ? fail("fi_close", ret) : bad;
}

/* Start the ranks (this program, "rank R") and wait for them. */
static int run_ranks(void)
{
    pid_t pid[RANKS];
    int r, status, bad = 0;
    char arg[16];

    fflush(stdout);
    for (r = 0; r < RANKS; r++) {
        snprintf(arg, sizeof(arg), "%d", r);
        pid[r] = fork();
        if (pid[r] == 0) {
            execl("/proc/self/exe", "kav_av", "rank", arg,
                  (char *)NULL);
            perror("execl /proc/self/exe");
            _exit(127);
        }
        if (pid[r] < 0) {
            perror("fork");
            bad = 1;
        }
    }
    for (r = 0; r < RANKS; r++) {
        if (pid[r] < 0)
            continue;
        if (waitpid(pid[r], &status, 0) < 0) {
            perror("waitpid");
            bad = 1;
        } else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "rank %d failed\n", r);
            bad = 1;
        }
    }
    return bad;
}

static int launcher(uint32_t vni)
{
    /* Mode 0600 unless $KAV_AV_MODE says otherwise (e.g. 0640). */
    struct fi_av_attr attr = { .type = FI_AV_TABLE, .name = NAME,
                               .count = RANKS };
    struct kav_auth_key key = { .vni = vni };
    struct sockaddr_in sin[RANKS];
    fi_addr_t handles[RANKS], kh;
    int errs[RANKS] = { 0 }, bad = 0, ret, r;
    struct fid_domain *dom;
    struct fid_av *av;

    if (open_domain(&dom))
        return 1;
    ret = fi_av_open(dom, &attr, &av, NULL);  /* creates "job42" */
    if (ret) {
        fi_close(&dom->fid);
        return fail("fi_av_open(\"" NAME "\")", ret);
    }
    ret = fi_av_insert_auth_key(av, &key, sizeof(key), &kh, 0);
    if (ret && ret != -FI_EALREADY) {
        fprintf(stderr, "fi_av_insert_auth_key(vni %u): %s\n", vni,
                why(ret));
        bad = 1;
        goto out;
    }
    for (r = 0; r < RANKS; r++) {
        sin[r] = (struct sockaddr_in){ .sin_family = AF_INET,
            .sin_port = htons(5000 + r),
            .sin_addr.s_addr = htonl(0x0a000001 + r) };  /* 10.0.0.x */
        handles[r] = kh;        /* in: its key; out: its fi_addr */
    }
    ret = fi_av_insert(av, sin, RANKS, handles,
                       FI_AUTH_KEY | FI_SYNC_ERR, errs);
    if (ret < 0)
        bad = fail("fi_av_insert", ret);
    for (r = 0; r < RANKS; r++)
        if (errs[r])
            bad = fail("fi_av_insert: a rank's address", -errs[r]);
    /*
     * The AV lives while a descriptor, a mapping or a pin holds it: the
     * ranks must open it before this process closes it.
     */
    if (!bad)
        bad = run_ranks();
out:
    ret = fi_close(&av->fid);
    if (ret == 0)
        ret = fi_close(&dom->fid);
    return ret ? fail("fi_close", ret) : bad;
}

int main(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : "100";
    unsigned long n;
    char *end;

    if (argc == 3 && !strcmp(argv[1], "rank")) {
        n = strtoul(argv[2], &end, 10);
        if (end != argv[2] && !*end && n < RANKS)
            return rank(n);
    } else if (argc <= 2) {
        n = strtoul(arg, &end, 0);
        if (end != arg && !*end && n <= UINT32_MAX)
            return launcher(n);
    }
    fprintf(stderr, "usage: %s [VNI] | %s rank 0..%d\n", argv[0],
            argv[0], RANKS - 1);
    return 2;
}
