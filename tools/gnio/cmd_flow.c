/* SPDX-License-Identifier: MIT */
/*
 * tools/gnio/cmd_flow.c - `gnio flow`: check a rules file, and classify a
 * capture with it.
 *
 *   gnio flow check FILE [--wire SPEC] [--json]
 *   gnio flow classify FILE --pcap CAPTURE [--queue Q] [--json]
 *
 * `check` loads the rules into a flow (on the wire when given, so actions
 * the wire cannot carry out are refused as they would be at run time) and
 * prints them in canonical form. `classify` reads every frame of a capture
 * with libpcap, classifies it with the same code the proxies run, and
 * prints each rule's hits, the default's, and the frames per action; the
 * books close when frames = the rules' hits + the default's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "flowreport.h"
#include "json.h"
#include "probe.h"
#include "gnio/gnio.h"

#ifdef GNIO_HAVE_PCAP
#include <pcap/pcap.h>
#endif

#define BURST 64

static void usage(FILE *f)
{
	fprintf(f, "usage: gnio flow check FILE [--wire SPEC] [--json]\n"
		   "       gnio flow classify FILE --pcap CAPTURE [--queue Q] [--json]\n\n"
		   "Steering rules (one per line; grammar in docs/flow.md).\n"
		   "  check      load FILE (against the wire's capabilities with --wire) and print the rules\n"
		   "  classify   classify every frame of CAPTURE; print each rule's hits\n"
		   "  --queue Q  the arrival queue the `gnio` action names (default 0)\n"
		   "  --json     one JSON object (schema: share/gnio/schemas/flow.schema.json)\n"
		   "Exit: 0 ok, 1 other failure, 2 usage or an error in FILE (line:column: what was\n"
		   "      expected), 3 an action the wire cannot carry out, or a missing file.\n");
}

static int load_rules(const char *file, struct gnio_flow *flow)
{
	gnio_error_t err = gnio_flow_load_file(flow, file);

	if (err) {
		fprintf(stderr, "gnio flow: %s\n", gnio_last_error_msg());
		return exit_code_for(err);
	}
	return GNIO_EXIT_OK;
}

static int cmd_check(const char *file, const char *wire, int as_json)
{
	struct gnio_dev *dev = NULL;
	struct gnio_flow *flow = NULL;
	gnio_error_t err;
	int rc;

	if (wire) {
		err = gnio_dev_open(wire, &dev);
		if (err) {
			fprintf(stderr, "gnio flow: cannot open wire '%s': %s\n", wire, gnio_last_error_msg());
			return exit_code_for(err);
		}
	}
	err = gnio_flow_create(dev, &flow);
	if (err) {
		fprintf(stderr, "gnio flow: %s\n", gnio_last_error_msg());
		rc = exit_code_for(err);
		goto out;
	}
	rc = load_rules(file, flow);
	if (rc == GNIO_EXIT_OK) {
		if (as_json) {
			struct json j;

			json_init(&j, stdout, 0);
			json_obj_begin(&j, NULL);
			json_str(&j, "file", file);
			json_str(&j, "wire", wire);
			flowreport_json(&j, flow);
			json_obj_end(&j);
			json_finish(&j);
		} else {
			printf("%s: rules OK%s%s\n", file, wire ? " on " : "", wire ? wire : "");
			flowreport_print(stdout, flow, 0);
		}
	}
out:
	if (flow)
		gnio_flow_destroy(flow);
	if (dev)
		gnio_dev_close(dev);
	return rc;
}

static int cmd_classify(const char *file, const char *capture, unsigned queue, int as_json)
{
#ifdef GNIO_HAVE_PCAP
	char errbuf[PCAP_ERRBUF_SIZE];
	struct gnio_flow *flow = NULL;
	struct gnio_flow_reader *rd = NULL;
	struct gnio_flow_frame fr[BURST];
	struct gnio_flow_result res[BURST];
	struct gnio_flow_stats st = {.struct_size = sizeof(st)};
	uint64_t per_action[GNIO_FLOW_ACTION_COUNT_] = {0}, frames = 0, truncated = 0;
	uint8_t *bufs = NULL;
	pcap_t *p;
	int rc, nb = 0;

	p = pcap_open_offline(capture, errbuf);
	if (!p) {
		fprintf(stderr, "gnio flow: cannot read capture %s: %s\n", capture, errbuf);
		return GNIO_EXIT_ENV;
	}
	if (pcap_datalink(p) != DLT_EN10MB) {
		fprintf(stderr, "gnio flow: capture %s is not Ethernet (link type %s)\n", capture,
			pcap_datalink_val_to_name(pcap_datalink(p)) ? pcap_datalink_val_to_name(pcap_datalink(p)) : "?");
		pcap_close(p);
		return GNIO_EXIT_USAGE;
	}
	if (gnio_flow_create(NULL, &flow) || gnio_flow_reader_create(flow, (uint16_t)queue, &rd)) {
		fprintf(stderr, "gnio flow: %s\n", gnio_last_error_msg());
		rc = GNIO_EXIT_FAIL;
		goto out;
	}
	rc = load_rules(file, flow);
	if (rc != GNIO_EXIT_OK)
		goto out;
	bufs = malloc((size_t)BURST * 65536);
	if (!bufs) {
		rc = GNIO_EXIT_FAIL;
		goto out;
	}
	for (;;) {
		struct pcap_pkthdr *h;
		const u_char *d;
		int got = pcap_next_ex(p, &h, &d);

		if (got == 1) {
			uint32_t len = h->caplen < 65536 ? h->caplen : 65536;

			/* frames as captured: a cut (caplen < len) is classified on what is there */
			truncated += h->caplen < h->len;
			memcpy(bufs + (size_t)nb * 65536, d, len);
			fr[nb].data = bufs + (size_t)nb * 65536;
			fr[nb].len = len;
			nb++;
		}
		if (nb == BURST || (got != 1 && nb)) {
			gnio_flow_classify(rd, fr, (unsigned)nb, res);
			for (int i = 0; i < nb; i++)
				per_action[res[i].action]++;
			frames += (uint64_t)nb;
			nb = 0;
		}
		if (got == PCAP_ERROR_BREAK)
			break;
		if (got == PCAP_ERROR) {
			fprintf(stderr, "gnio flow: reading %s: %s\n", capture, pcap_geterr(p));
			rc = GNIO_EXIT_FAIL;
			goto out;
		}
	}
	gnio_flow_get_stats(flow, &st);
	if (as_json) {
		struct json j;

		json_init(&j, stdout, 0);
		json_obj_begin(&j, NULL);
		json_str(&j, "file", file);
		json_str(&j, "capture", capture);
		json_u64(&j, "frames", frames);
		json_u64(&j, "truncated", truncated);
		flowreport_json(&j, flow);
		json_obj_begin(&j, "actions");
		for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++)
			json_u64(&j, gnio_flow_action_name((enum gnio_flow_action_type)a), per_action[a]);
		json_obj_end(&j);
		json_bool(&j, "books_balance", st.frames == frames);
		json_obj_end(&j);
		json_finish(&j);
	} else {
		printf("%s: %llu frames classified with %s\n", capture, (unsigned long long)frames, file);
		printf("  %4s  %12s  %s\n", "rule", "hits", "");
		flowreport_print(stdout, flow, 1);
		printf("  actions:");
		for (int a = 0; a < GNIO_FLOW_ACTION_COUNT_; a++)
			printf(" %s %llu", gnio_flow_action_name((enum gnio_flow_action_type)a),
			       (unsigned long long)per_action[a]);
		printf("\n");
	}
	if (st.frames != frames) {
		fprintf(stderr, "gnio flow: the flow counted %llu frames of %llu\n", (unsigned long long)st.frames,
			(unsigned long long)frames);
		rc = GNIO_EXIT_FAIL;
	}
out:
	free(bufs);
	if (rd)
		gnio_flow_reader_destroy(rd);
	if (flow)
		gnio_flow_destroy(flow);
	pcap_close(p);
	return rc;
#else
	(void)file;
	(void)capture;
	(void)queue;
	(void)as_json;
	fprintf(stderr, "gnio flow classify: gnio was built without libpcap\n");
	return GNIO_EXIT_ENV;
#endif
}

int gnio_cmd_flow(int argc, char **argv)
{
	static const struct option opts[] = {
		{"wire", required_argument, NULL, 'w'}, {"pcap", required_argument, NULL, 'p'},
		{"queue", required_argument, NULL, 'q'}, {"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},	{NULL, 0, NULL, 0},
	};
	const char *wire = NULL, *capture = NULL, *sub, *file;
	unsigned long queue = 0;
	int as_json = 0, c;
	char *end;

	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return GNIO_EXIT_OK;
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, "w:p:q:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wire = optarg; break;
		case 'p': capture = optarg; break;
		case 'q':
			queue = strtoul(optarg, &end, 0);
			if (*end || queue > 65535) {
				fprintf(stderr, "gnio flow: --queue %s is not a queue number 0..65535\n", optarg);
				return GNIO_EXIT_USAGE;
			}
			break;
		case 'j': as_json = 1; break;
		case 'h': usage(stdout); return GNIO_EXIT_OK;
		default: usage(stderr); return GNIO_EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "gnio flow: expected a subcommand (check, classify) and a rules FILE\n");
		return GNIO_EXIT_USAGE;
	}
	sub = argv[optind];
	file = argv[optind + 1];
	if (!strcmp(sub, "check")) {
		if (capture) {
			fprintf(stderr, "gnio flow check: --pcap belongs to classify\n");
			return GNIO_EXIT_USAGE;
		}
		return cmd_check(file, wire, as_json);
	}
	if (!strcmp(sub, "classify")) {
		if (!capture || wire) {
			fprintf(stderr, "gnio flow classify: needs --pcap CAPTURE (and takes no --wire)\n");
			return GNIO_EXIT_USAGE;
		}
		return cmd_classify(file, capture, (unsigned)queue, as_json);
	}
	fprintf(stderr, "gnio flow: unknown subcommand '%s' (check, classify)\n", sub);
	return GNIO_EXIT_USAGE;
}
