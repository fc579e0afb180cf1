/* kav_domain_open(3): a domain whose AVs use one granted VNI. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <kav/kav.h>

/* Why a call failed: libkav's words for this refusal, else the code's. */
static const char *why(int err)
{
    const char *s = kav_last_error();

    return *s ? s : kav_strerror(err);
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
    struct sockaddr_in sin = { .sin_family = AF_INET,
                               .sin_port = htons(5000) };
    struct fid_domain *dom;
    struct fid_av *av;
    unsigned long vni;
    fi_addr_t fa;
    char buf[64], *end;
    size_t len = sizeof(buf);
    int err = 0, ret;

    vni = strtoul(arg, &end, 0);
    if (end == arg || *end || vni > UINT32_MAX) {
        fprintf(stderr, "usage: %s [VNI]: bad VNI \"%s\"\n",
                argv[0], arg);
        return 2;
    }
    key.vni = vni;
    if (inet_pton(AF_INET, "10.0.0.1", &sin.sin_addr) != 1) {
        fprintf(stderr, "inet_pton: not an IPv4 address\n");
        return 1;
    }
    ret = kav_domain_open(&info, &dom, NULL);
    if (ret) {
        fprintf(stderr, "kav_domain_open(vni %lu): %s\n", vni,
                why(ret));
        return 1;
    }
    ret = fi_av_open(dom, &attr, &av, NULL);
    if (ret) {
        fprintf(stderr, "fi_av_open: %s\n", why(ret));
        fi_close(&dom->fid);
        return 1;
    }
    ret = fi_av_insert(av, &sin, 1, &fa, FI_SYNC_ERR, &err);
    if (ret == 1)
        printf("%llu: %s\n", (unsigned long long)fa,
               fi_av_straddr(av, &sin, buf, &len));
    else
        fprintf(stderr, "fi_av_insert: %s\n",
                why(ret < 0 ? ret : -err));
    err = ret == 1 ? 0 : 1;
    ret = fi_close(&av->fid);
    if (ret == 0)
        ret = fi_close(&dom->fid);
    if (ret) {
        fprintf(stderr, "fi_close: %s\n", why(ret));
        err = 1;
    }
    return err;
}
