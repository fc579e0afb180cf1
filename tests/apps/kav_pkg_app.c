// SPDX-License-Identifier: GPL-2.0
/*
 * What an application built against the installed libkav-dev looks like:
 * `cc app.c $(pkg-config --cflags --libs kav)`. It opens a kav domain and
 * prints the outcome: "domain open" with the module loaded, otherwise
 * libkav's error (exit status 2), which is what the package test sees on
 * a host that cannot load modules.
 */
#include <stdio.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <kav/kav.h>

int main(void)
{
	struct fi_info info = { 0 };
	struct fid_domain *domain;
	int ret;

	info.addr_format = FI_SOCKADDR_IN;
	ret = kav_domain_open(&info, &domain, NULL);
	if (ret) {
		printf("kav_domain_open: %s\n", kav_strerror(ret));
		return 2;
	}
	printf("domain open\n");
	fi_close(&domain->fid);
	return 0;
}
