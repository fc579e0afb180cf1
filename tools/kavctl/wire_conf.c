// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* The file of wire apply and its plan: see wire_conf.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "format.h"
#include "wire_conf.h"

#define MAX_WORDS	(KAV_WIRE_NETS_MAX + 2)

void kc_wire_state_init(struct kc_wire_state *st)
{
	memset(st, 0, sizeof(*st));
	st->mode = KAV_WIRE_OFF;
	st->has_mark = true;
	st->mark = KC_WIRE_MARK_DEFAULT;
}

static int find_net(const struct kc_wire_state *st,
		    const struct kav_wire_net *n)
{
	size_t i;

	for (i = 0; i < st->nr_nets; i++)
		if (kc_wire_net_eq(&st->nets[i], n))
			return (int)i;
	return -1;
}

/* A setting given twice: say where it was first. */
static int twice(const char *what, unsigned int first, char *err,
		 size_t errlen)
{
	return kc_fail(err, errlen, "%s given twice (first on line %u)", what,
		    first);
}

int kc_wire_conf_parse_line(char *line, unsigned int lineno,
			    struct kc_wire_state *st, char *err,
			    size_t errlen)
{
	struct kav_wire_net nets[KAV_WIRE_NETS_MAX] = { { 0 } };
	char *words[MAX_WORDS], *p, *save = NULL, desc[KC_WIRE_NET_TEXT + 16];
	const char *kw;
	size_t nn = 0, i;
	int nw = 0, at;

	for (p = strtok_r(line, " \t\r\n\v\f", &save); p;
	     p = strtok_r(NULL, " \t\r\n\v\f", &save)) {
		if (p[0] == '#')
			break;
		if (nw == MAX_WORDS)
			return kc_fail(err, errlen, "too many words");
		words[nw++] = p;
	}
	if (!nw)
		return 0;
	kw = words[0];

	if (!strcmp(kw, "mode") || !strcmp(kw, "ports") ||
	    !strcmp(kw, "mark")) {
		uint32_t a = 0, b = 0;

		if (nw != 2)
			return kc_fail(err, errlen, "'%s' takes one value%s", kw,
				    nw > 2 ? "" : ": none given");
		if (!strcmp(kw, "mode")) {
			if (st->line_mode)
				return twice("mode", st->line_mode, err, errlen);
			if (kc_wire_parse_mode(words[1], &a, err, errlen))
				return -1;
			st->mode = a;
			st->line_mode = lineno;
		} else if (!strcmp(kw, "ports")) {
			if (st->line_ports)
				return twice("ports", st->line_ports, err,
					     errlen);
			if (kc_wire_parse_ports(words[1], &a, &b, err, errlen))
				return -1;
			st->port_min = a;
			st->port_max = b;
			st->line_ports = lineno;
		} else {
			if (st->line_mark)
				return twice("mark", st->line_mark, err, errlen);
			if (kc_wire_parse_mark(words[1], &a, err, errlen))
				return -1;
			st->has_mark = true;
			st->mark = a;
			st->line_mark = lineno;
		}
		return 0;
	}

	if (!strcmp(kw, "scope")) {
		if (nw < 2)
			return kc_fail(err, errlen,
				    "'scope' takes one or more prefixes (ADDR[/LEN])");
		for (i = 1; i < (size_t)nw; i++) {
			if (!strcmp(words[i], "port") ||
			    !strcmp(words[i], "proto"))
				return kc_fail(err, errlen,
					    "a scope prefix has no %s (the fabric's ports: 'ports MIN-MAX'; an exempted endpoint: 'exempt PREFIX [port N] [proto tcp|udp]')",
					    words[i][1] == 'o' ? "port" : "protocol");
			if (kc_wire_parse_prefix(words[i], &nets[nn++], err,
						 errlen))
				return -1;
		}
	} else if (!strcmp(kw, "exempt")) {
		bool has_port = false, has_proto = false;
		const char *usage =
			"exempt ADDR[/LEN] [port N] [proto tcp|udp]";

		if (nw == 1)
			return kc_fail(err, errlen,
				    "'exempt' takes a prefix (%s)", usage);
		if (kc_wire_parse_prefix(words[1], &nets[0], err, errlen))
			return -1;
		nets[0].flags = KAV_WIRE_NET_EXEMPT;
		/* "port N" and "proto P", in either order, each once. */
		for (i = 2; i < (size_t)nw; i += 2) {
			bool port = !strcmp(words[i], "port");

			if ((!port && strcmp(words[i], "proto") != 0) ||
			    i + 1 >= (size_t)nw)
				return kc_fail(err, errlen,
					    "'exempt' takes one prefix and an optional port and protocol: %s",
					    usage);
			if (port ? has_port : has_proto)
				return kc_fail(err, errlen,
					    "'%s' given twice on the line",
					    words[i]);
			if (port) {
				if (kc_wire_parse_port(words[i + 1],
						       &nets[0].port, err,
						       errlen))
					return -1;
				has_port = true;
			} else {
				if (kc_wire_parse_proto(words[i + 1],
							&nets[0].protocol, err,
							errlen))
					return -1;
				has_proto = true;
			}
		}
		nn = 1;
	} else {
		return kc_fail(err, errlen,
			    "unknown setting '%s' (mode, ports, mark, scope or exempt)",
			    kw);
	}

	/* The whole line or nothing of it. */
	for (i = 0; i < nn; i++) {
		size_t j;

		kc_wire_describe_net(&nets[i], desc, sizeof(desc));
		at = find_net(st, &nets[i]);
		if (at >= 0)
			return kc_fail(err, errlen,
				    "%s given twice (first on line %u)", desc,
				    st->line_net[at]);
		for (j = 0; j < i; j++)
			if (kc_wire_net_eq(&nets[j], &nets[i]))
				return kc_fail(err, errlen,
					    "%s given twice on the line", desc);
	}
	if (st->nr_nets + nn > KAV_WIRE_NETS_MAX)
		return kc_fail(err, errlen,
			    "more than %d scope prefixes and exemptions (the kernel's limit)",
			    KAV_WIRE_NETS_MAX);
	for (i = 0; i < nn; i++) {
		st->line_net[st->nr_nets] = lineno;
		st->nets[st->nr_nets++] = nets[i];
	}
	return 0;
}

static void conf_error(const char *path, unsigned int line, const char *msg,
		       unsigned int *nr)
{
	if (line)
		fprintf(stderr, "kavctl: %s:%u: %s\n", path, line, msg);
	else
		fprintf(stderr, "kavctl: %s: %s\n", path, msg);
	(*nr)++;
}

unsigned int kc_wire_conf_read(FILE *f, const char *path,
			       struct kc_wire_state *st)
{
	char err[KC_PATH_MAX + 256], *line = NULL;
	unsigned int nr = 0, lineno = 0;
	size_t cap = 0;
	ssize_t len;

	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (memchr(line, '\0', (size_t)len)) {
			conf_error(path, lineno, "NUL byte in the line", &nr);
			continue;
		}
		if (kc_wire_conf_parse_line(line, lineno, st, err, sizeof(err)))
			conf_error(path, lineno, err, &nr);
	}
	if (ferror(f)) {
		snprintf(err, sizeof(err), "read error: %s", strerror(errno));
		conf_error(path, 0, err, &nr);
	}
	free(line);
	return nr;
}

/* ------------------------------------------------------------- the plan */

struct plan {
	struct kc_wire_step *steps;
	size_t n;
	size_t nets;		/* in the kernel at this point of the plan */
	const struct kc_wire_state *want, *have;
	bool *gone;		/* have's nets deleted so far */
};

static void step_net(struct plan *p, enum kc_wire_step_op op,
		     const struct kav_wire_net *n, unsigned int line)
{
	struct kc_wire_step *s = &p->steps[p->n++];

	memset(s, 0, sizeof(*s));
	s->op = op;
	s->net = *n;
	s->line = line;
	if (op == KC_WIRE_STEP_ADD)
		p->nets++;
	else
		p->nets--;
}

/* Deletes have's nets of the kind @exempt that want does not have. */
static void delete_stale(struct plan *p, bool exempt)
{
	size_t i;

	for (i = 0; i < p->have->nr_nets; i++) {
		const struct kav_wire_net *n = &p->have->nets[i];

		if (p->gone[i] || !(n->flags & KAV_WIRE_NET_EXEMPT) != !exempt ||
		    find_net(p->want, n) >= 0)
			continue;
		p->gone[i] = true;
		step_net(p, KC_WIRE_STEP_DEL, n, 0);
	}
}

/* Adds want's nets of the kind @exempt that have does not have. */
static void add_missing(struct plan *p, bool exempt)
{
	size_t i;

	for (i = 0; i < p->want->nr_nets; i++) {
		const struct kav_wire_net *n = &p->want->nets[i];

		if (!(n->flags & KAV_WIRE_NET_EXEMPT) != !exempt ||
		    find_net(p->have, n) >= 0)
			continue;
		/* Room first: the kernel holds KAV_WIRE_NETS_MAX at most. */
		if (p->nets >= KAV_WIRE_NETS_MAX)
			delete_stale(p, true);
		step_net(p, KC_WIRE_STEP_ADD, n, p->want->line_net[i]);
	}
}

size_t kc_wire_plan(const struct kc_wire_state *want,
		    const struct kc_wire_state *have,
		    struct kc_wire_step *steps)
{
	bool gone[KAV_WIRE_NETS_MAX] = { false };
	struct plan p = {
		.steps = steps, .want = want, .have = have, .gone = gone,
		.nets = have->nr_nets,
	};
	struct kc_wire_step *s;
	bool mode_done = false;

	/* Off first: nothing is refused while the rest changes. */
	if (want->mode == KAV_WIRE_OFF && have->mode != KAV_WIRE_OFF) {
		s = &steps[p.n++];
		memset(s, 0, sizeof(*s));
		s->op = KC_WIRE_STEP_SET;
		s->set.has_mode = true;
		s->set.mode = KAV_WIRE_OFF;
		s->line = want->line_mode;
		mode_done = true;
	}
	/* What lets more through. */
	add_missing(&p, true);
	delete_stale(&p, false);
	/* Ports and mark. */
	s = &steps[p.n];
	memset(s, 0, sizeof(*s));
	s->op = KC_WIRE_STEP_SET;
	if (want->port_min != have->port_min ||
	    (want->port_min && want->port_max != have->port_max)) {
		s->set.has_ports = true;
		s->set.port_min = want->port_min;
		s->set.port_max = want->port_min ? want->port_max : 0;
		s->line = want->line_ports;
	}
	if (want->has_mark && (!have->has_mark || want->mark != have->mark)) {
		s->set.has_mark = true;
		s->set.mark = want->mark;
		if (!s->line)
			s->line = want->line_mark;
	}
	if (s->set.has_ports || s->set.has_mark)
		p.n++;
	/* What lets less through. */
	add_missing(&p, false);
	delete_stale(&p, true);
	/* The mode last: on, or from one carrier to the other. */
	if (!mode_done && want->mode != have->mode) {
		s = &steps[p.n++];
		memset(s, 0, sizeof(*s));
		s->op = KC_WIRE_STEP_SET;
		s->set.has_mode = true;
		s->set.mode = want->mode;
		s->line = want->line_mode;
	}
	return p.n;
}

static const char *mode_text(uint32_t mode, char *buf, size_t len)
{
	const char *s = kc_wire_mode_name(mode);

	if (s)
		return s;
	snprintf(buf, len, "%u", mode);
	return buf;
}

void kc_wire_describe_step(const struct kc_wire_step *s,
			   const struct kc_wire_state *have, char *buf,
			   size_t len)
{
	char a[32], b[32];
	size_t o = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (s->op != KC_WIRE_STEP_SET) {
		kc_wire_describe_net(&s->net, buf, len);
		return;
	}
#define ADD(...) do { \
		int _n = snprintf(buf + o, o < len ? len - o : 0, __VA_ARGS__); \
		if (_n > 0) \
			o += (size_t)_n; \
	} while (0)
	if (s->set.has_mode)
		ADD("mode %s -> %s", mode_text(have->mode, a, sizeof(a)),
		    mode_text(s->set.mode, b, sizeof(b)));
	if (s->set.has_ports) {
		kc_wire_format_ports(have->port_min, have->port_max, a,
				     sizeof(a));
		kc_wire_format_ports(s->set.port_min, s->set.port_max, b,
				     sizeof(b));
		ADD("%sports %s -> %s", o ? ", " : "", a, b);
	}
	if (s->set.has_mark) {
		if (have->has_mark)
			snprintf(a, sizeof(a), "0x%08x", have->mark);
		else
			snprintf(a, sizeof(a), "unknown");
		ADD("%smark %s -> 0x%08x", o ? ", " : "", a, s->set.mark);
	}
#undef ADD
}
