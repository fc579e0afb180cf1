/* An AV held by the kernel: four addresses under a granted VNI. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <kav/kav.h>

#define N 4

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

int main(int argc, char **argv)
{
    /* A VNI the administrator granted: kavctl grant add vni 42 ... */
    const char *arg = argc > 1 ? argv[1] : "42";
    char *end;
    unsigned long vni = strtoul(arg, &end, 0);
    struct kav_auth_key key = { .vni = vni };
    struct fi_domain_attr dattr = { .auth_key = (uint8_t *)&key,
                                    .auth_key_size = sizeof(key) };
    struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
                            .domain_attr = &dattr };
    struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 1024 };
    struct sockaddr_in addrs[N], sa;
    size_t len = sizeof(sa), slen;
    fi_addr_t fi_addrs[N];
    int errs[N] = { 0 }, ret, i, bad = 0;
    struct fid_domain *dom;
    struct fid_av *av;
    char buf[64];

    if (end == arg || *end || vni > UINT32_MAX) {
        fprintf(stderr, "usage: %s [VNI]: bad VNI \"%s\"\n",
                argv[0], arg);
        return 2;
    }
    ret = kav_domain_open(&info, &dom, NULL);  /* opens /dev/kav */
    if (ret) {
        fprintf(stderr, "kav_domain_open(vni %lu): %s\n", vni,
                why(ret));
        return 1;
    }
    ret = fi_av_open(dom, &attr, &av, NULL);
    if (ret) {
        fi_close(&dom->fid);
        return fail("fi_av_open", ret);
    }
    for (i = 0; i < N; i++)
        addrs[i] = (struct sockaddr_in){ .sin_family = AF_INET,
            .sin_port = htons(5000 + i),
            .sin_addr.s_addr = htonl(0x0a000001 + i) };  /* 10.0.0.x */
    /* One ioctl per 16384 addresses; errs[i]: why address i failed. */
    ret = fi_av_insert(av, addrs, N, fi_addrs, FI_SYNC_ERR, errs);
    if (ret < 0)
        bad = fail("fi_av_insert", ret);
    for (i = 0; i < N; i++)
        if (errs[i])
            bad = fail("fi_av_insert: an address", -errs[i]);
    if (!bad) {
        /* Read from the mapped table: no system call. */
        ret = fi_av_lookup(av, fi_addrs[N - 1], &sa, &len);
        slen = sizeof(buf);
        if (ret)
            bad = fail("fi_av_lookup", ret);
        else
            printf("%d addresses under vni %u; fi_addr %llu is %s\n", N,
                   key.vni, (unsigned long long)fi_addrs[N - 1],
                   fi_av_straddr(av, &sa, buf, &slen));
    }
    ret = fi_close(&av->fid);
    if (ret)
        bad = fail("fi_close(av)", ret);
    ret = fi_close(&dom->fid);
    if (ret)
        bad = fail("fi_close(domain)", ret);
    return bad;
}
