/* kav_strerror(3): kav_last_error() says why a call was refused. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <kav/kav.h>

#define N 3

/* The detail of the last failure, or the code's text if there is none. */
static const char *why(int ret)
{
    const char *s = kav_last_error();

    return *s ? s : kav_strerror(ret);
}

int main(int argc, char **argv)
{
    const char *arg = argc > 1 ? argv[1] : "100";
    struct kav_auth_key key = { 0 };
    struct fi_domain_attr dattr = {
        .auth_key = (uint8_t *)&key,
        .auth_key_size = sizeof(key),
    };
    struct fi_info info = { .addr_format = FI_SOCKADDR_IN,
                            .domain_attr = &dattr };
    struct fi_av_attr attr = { .type = FI_AV_TABLE, .count = 16 };
    struct sockaddr_in addrs[N];
    fi_addr_t fi_addrs[N];
    struct fid_domain *dom;
    struct fid_av *av;
    unsigned long vni;
    char *end;
    int err = 0, ret, i;

    vni = strtoul(arg, &end, 0);
    if (end == arg || *end || vni > UINT32_MAX) {
        fprintf(stderr, "usage: %s [VNI]: bad VNI \"%s\"\n",
                argv[0], arg);
        return 2;
    }
    key.vni = vni;
    for (i = 0; i < N; i++) {
        addrs[i] = (struct sockaddr_in){ .sin_family = AF_INET,
                                         .sin_port = htons(5000 + i) };
        addrs[i].sin_addr.s_addr = htonl(0x0a000001 + i); /* 10.0.0.1+ */
    }
    ret = kav_domain_open(&info, &dom, NULL);
    if (ret) {
        /* No grant of this VNI: which identity asked, what it has. */
        fprintf(stderr, "kav_domain_open(vni %lu): %s\n", vni, why(ret));
        return 1;
    }
    ret = fi_av_open(dom, &attr, &av, NULL);
    if (ret) {
        fprintf(stderr, "fi_av_open: %s\n", why(ret));
        fi_close(&dom->fid);
        return 1;
    }
    ret = fi_av_insert(av, addrs, N, fi_addrs, 0, NULL);
    if (ret < N) {
        /* A grant's limit, a revoked key: the reason is in the text. */
        fprintf(stderr, "fi_av_insert(vni %lu): inserted %d of %d: %s\n",
                vni, ret < 0 ? 0 : ret, N, why(ret < 0 ? ret : -FI_EOTHER));
        err = 1;
    } else {
        printf("%d addresses under vni %lu\n", ret, vni);
    }
    ret = fi_close(&av->fid);
    if (ret == 0)
        ret = fi_close(&dom->fid);
    if (ret) {
        fprintf(stderr, "fi_close: %s\n", kav_strerror(ret));
        err = 1;
    }
    return err;
}
