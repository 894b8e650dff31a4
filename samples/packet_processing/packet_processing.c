/* SPDX-License-Identifier: MIT */
/*
 * samples/packet_processing/packet_processing.c - gnio_packet_processing, the
 * reference application: a persistent kernel that classifies IPv4 traffic,
 * answers ping and ARP for its own address from the GPU, and with --http
 * serves a small web site to a real client.
 *
 * Host side:
 *   - one RX queue, one TX queue with the RX pool registered (ICMP and ARP
 *     replies go out in place) and a TX pool (HTTP responses and the host's
 *     TCP answers) through gnio_pipeline;
 *   - three semaphores: counter snapshots (kernel -> host, printed every
 *     second by pp_stats.c), TCP control segments (kernel -> host) and the
 *     host's answers (host -> kernel), both for the TCP path (pp_tcp_path.c);
 *   - the HTTP pages and the flow table in host memory the kernel reads;
 *   - on sw:NAME the built-in generator's mix (addressed to --ip) as the
 *     peer, whose replies are checked here (checksums, addresses).
 * The --json counts are the kernel's last snapshot (status EXIT).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pp_host.h"
#include "sample.h"

#ifdef GNIO_SAMPLE_HAVE_CUDA
#define PP_CUDA packet_processing_cuda
#else
#define PP_CUDA NULL
#endif

struct pp {
	struct sample s;
	struct pp_args args;
	struct pp_shared *shared; /* host view */
	struct gnio_gpu_semaphore *stats_sem, *tcp_sem, *tx_sem;
	struct pp_stats_reader stats;
	struct pp_tcp_path tcp;
	struct gnio_gen_cfg gen;
	uint64_t count, size, rate;
	uint32_t ip;
	uint8_t mac[6];
	int mac_given, http;
	/* the sw peer's checks of what came back */
	uint64_t peer_frames, peer_icmp, peer_arp, peer_tcp, peer_bad;
};

/* Create, configure and start a semaphore of items records of info_size
 * bytes in pinned host memory both sides see. */
static gnio_error_t make_sem(struct sample *s, uint32_t items, uint32_t info_size, struct gnio_gpu_semaphore **sem,
			     struct gnio_gpu_semaphore_gpu **handle)
{
	gnio_error_t err = gnio_gpu_semaphore_create(s->gpu, sem);
	if (err)
		return err;
	/* The rollback destroys it, once the kernel has stopped. */
	if ((err = gnio_rollback_add_semaphore(gnio_pipeline_get_rollback(s->pl), *sem)) != GNIO_SUCCESS) {
		gnio_gpu_semaphore_destroy(*sem);
		return err;
	}
	if ((err = gnio_gpu_semaphore_set_memory_type(*sem, GNIO_GPU_MEM_TYPE_CPU_GPU)) ||
	    (err = gnio_gpu_semaphore_set_items_num(*sem, items)) ||
	    (err = gnio_gpu_semaphore_set_custom_info(*sem, info_size, GNIO_GPU_MEM_TYPE_CPU_GPU)) ||
	    (err = gnio_gpu_semaphore_start(*sem)))
		return err;
	return gnio_gpu_semaphore_get_gpu_handle(*sem, handle);
}

static int ones_ok(const uint8_t *p, uint32_t n, uint32_t sum) { return gnio_csum_fold(gnio_csum_add(sum, p, n)) == 0; }

/* The sw peer: every frame back must be a correct reply from us. */
static void peer_rx(void *user, const uint8_t *f, uint32_t len, uint64_t ts_ns)
{
	struct pp *x = user;
	struct pp_pkt p;
	(void)ts_ns;
	x->peer_frames++;
	int kind = pp_parse(f, len, &p);
	int good = 0;
	if (kind == PP_ARP) {
		const uint8_t *a = f + p.l3;
		good = pp_rd16(a + 6) == 2 && !memcmp(a + 8, x->mac, 6) && !memcmp(a + 14, &x->ip, 4) &&
		       !memcmp(f + 6, x->mac, 6);
		x->peer_arp += good;
	} else if (p.l4) {
		const uint8_t *ip = f + p.l3;
		const uint32_t tot = pp_rd16(ip + 2), ihl = (uint32_t)(ip[0] & 15) * 4;
		good = ones_ok(ip, ihl, 0) && !memcmp(ip + 12, &x->ip, 4);
		if (kind == PP_ICMP) {
			good = good && f[p.l4] == 0 && ones_ok(f + p.l4, tot - ihl, 0);
			x->peer_icmp += good;
		} else if (p.proto == 6) {
			/* pseudo-header: addresses, protocol, TCP length */
			uint32_t sum = gnio_csum_add(0, ip + 12, 8) + 6 + (tot - ihl);
			good = good && ones_ok(f + p.l4, tot - ihl, sum);
			x->peer_tcp += good;
		} else {
			good = 0;
		}
	}
	x->peer_bad += !good;
}

static const char *const json_keys[PP_KINDS] = {
	[PP_ARP] = "arp", [PP_ICMP] = "icmp", [PP_DNS] = "dns", [PP_UDP_OTHER] = "udp_other",
	[PP_TCP_SYN] = "tcp_syn", [PP_TCP_FIN] = "tcp_fin", [PP_TCP_OTHER] = "tcp_other",
	[PP_HTTP_GET] = "http_get", [PP_HTTP_POST] = "http_post", [PP_HTTP_HEAD] = "http_head", [PP_OTHER] = "other",
};

static int start(struct pp *x)
{
	struct sample *s = &x->s;
	struct gnio_gpu_semaphore_gpu *stats_h, *tcp_h, *tx_h;
	gnio_error_t err;
	if ((err = make_sem(s, PP_STATS_ITEMS, sizeof(struct pp_counters), &x->stats_sem, &stats_h)) ||
	    (err = make_sem(s, PP_TCP_ITEMS, sizeof(struct pp_frame_rec), &x->tcp_sem, &tcp_h)) ||
	    (err = make_sem(s, PP_TX_ITEMS, sizeof(struct pp_frame_rec), &x->tx_sem, &tx_h))) {
		fprintf(stderr, "gnio_packet_processing: semaphore: %s (%s)\n", gnio_last_error_msg(),
			gnio_error_get_name(err));
		return SAMPLE_EXIT_ENV;
	}
	x->shared = s->q.user_mem_cpu;
	memset(x->shared, 0, sizeof(*x->shared));
	pp_pages_init(x->shared, s->on_cpu ? "the CPU device" : gnio_gpu_get_name(s->gpu));
	if (!x->mac_given)
		sample_wire_mac(s->dev, x->mac);
	x->args = (struct pp_args){
		.rxq = s->q.rxh, .txq = s->q.txh, .shared = s->q.user_mem_gpu, .stats_sem = stats_h, .tcp_sem = tcp_h,
		.tx_sem = tx_h, .ip = x->ip, .http = x->http, .role = PP_ROLE_ALL, .scope = s->o.scope,
	};
	memcpy(x->args.mac, x->mac, 6);

	x->stats.sem = x->stats_sem;
	x->stats.t0 = sample_now();
	if (pp_stats_start(&x->stats))
		return SAMPLE_EXIT_ENV;
	if (x->http) {
		x->tcp.tcp_sem = x->tcp_sem;
		x->tcp.tx_sem = x->tx_sem;
		x->tcp.shared = x->shared;
		x->tcp.ip = x->ip;
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		x->tcp.secret = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
		if (pp_tcp_path_start(&x->tcp))
			return SAMPLE_EXIT_ENV;
	}
	if (s->o.is_sw) {
		gnio_gen_cfg_init(&x->gen);
		x->gen.proto = GNIO_GEN_MIX;
		x->gen.frame_size = (uint32_t)x->size;
		x->gen.count = x->count;
		x->gen.rate_pps = x->rate;
		x->gen.dst_ip = ntohl(x->ip);
		memcpy(x->gen.dst_mac, x->mac, 6);
		sample_peer_rx_start(&s->peer, peer_rx, x);
	}
	return SAMPLE_EXIT_OK;
}

static int done(void *user)
{
	struct pp *x = user;
	/* With a frame count on sw: stop once every offered frame is in. */
	if (!x->s.o.is_sw || !x->count || !sample_peer_gen_done(&x->s.peer))
		return 0;
	struct gnio_eth_rxq_stats st;
	gnio_eth_rxq_get_stats(x->s.q.rxq, &st);
	return st.released >= x->count;
}

int main(int argc, char **argv)
{
	static struct pp x;
	struct sample *s = &x.s;
	x.ip = htonl(0x0a000002);
	x.size = 128;
	const struct sample_flag extra[] = {
		{"ip", 0, SAMPLE_FLAG_IPV4, &x.ip, 0, 0, "ADDR",
		 "our IPv4 address: ping and ARP for it are answered (default 10.0.0.2)"},
		{"mac", 0, SAMPLE_FLAG_MAC, x.mac, 0, 0, "MAC", "our MAC for ARP replies (default: the interface's)"},
		{"http", 0, SAMPLE_FLAG_BOOL, &x.http, 0, 0, NULL,
		 "serve HTTP on port 80: handshakes on a CPU path, GETs answered by the kernel"},
		{"count", 'c', SAMPLE_FLAG_U64, &x.count, 0, UINT64_MAX, "N",
		 "sw: frames of the generator's mix, then stop (default 0: endless)"},
		{"size", 's', SAMPLE_FLAG_U64, &x.size, 128, 1500, "BYTES", "sw: frame size (default 128)"},
		{"rate", 'r', SAMPLE_FLAG_U64, &x.rate, 0, UINT64_MAX, "PPS", "sw: offered frames per second (default 0: as fast as taken)"},
	};
	s->name = "packet_processing";
	int rc = sample_parse(argc, argv, s->name,
			      "The reference application: classify IPv4 traffic (UDP: DNS and other; TCP: SYN,\n"
			      "FIN, HTTP GET/POST/HEAD; ICMP; ARP), answer ping and ARP for --ip from the kernel,\n"
			      "in place, and with --http serve a small web site. Counters reach a host thread\n"
			      "through semaphores and print every second.",
			      1, extra, sizeof(extra) / sizeof(extra[0]), &s->o);
	if (rc >= 0)
		return rc;
	static const uint8_t no_mac[6];
	x.mac_given = memcmp(x.mac, no_mac, 6) != 0;

	struct gnio_pipeline_cfg pc;
	gnio_pipeline_cfg_init(&pc, NULL, NULL);
	pc.tx = 1;
	pc.tx_in_place = 1;
	pc.tx_pool = 1;
	pc.user_mem = sizeof(struct pp_shared);
	/* On sw the generator waits for room instead of overrunning the ring. */
	pc.flow_control = s->o.is_sw;
	rc = sample_up(s, &pc);
	if (rc == SAMPLE_EXIT_OK)
		rc = start(&x);
	sample_on_signals();
	if (rc == SAMPLE_EXIT_OK)
		rc = sample_launch(s, packet_processing_cpu, PP_CUDA, &x.args);
	if (rc == SAMPLE_EXIT_OK && s->o.is_sw)
		rc = sample_gen_start(s, &x.gen);
	if (rc != SAMPLE_EXIT_OK) {
		pp_tcp_path_stop(&x.tcp);
		rc = sample_abort(s, rc);
		pp_stats_stop(&x.stats);
		return rc;
	}
	char addr[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &x.ip, addr, sizeof(addr));
	fprintf(stderr, "gnio_packet_processing: answering ARP and ping for %s (%02x:%02x:%02x:%02x:%02x:%02x)%s\n", addr,
		x.mac[0], x.mac[1], x.mac[2], x.mac[3], x.mac[4], x.mac[5], x.http ? ", HTTP on port 80" : "");
	sample_wait(s, done, NULL, &x);
	/* Answers still on their way through the CPU path go out before the
	 * kernel stops; what a loaded machine leaves after 2 s is counted. */
	if (x.http && !pp_tcp_path_drain(&x.tcp, 2000000000ull))
		fprintf(stderr, "gnio_packet_processing: the TCP path did not drain in 2 s; what is left is counted\n");

	sample_quiesce(s, NULL, NULL);
	rc = sample_stop_kernel(s);
	if (rc != SAMPLE_EXIT_OK)
		return rc; /* failed closed */
	/* The kernel posted its last snapshot before it returned. */
	pp_stats_stop(&x.stats);
	pp_tcp_path_stop(&x.tcp);
	if (x.http)
		pp_tcp_path_count_left(&x.tcp);
	const struct pp_counters k = x.stats.latest;
	const uint64_t sent = k.icmp_replies + k.arp_replies + k.http_replies + k.cpu_tx;
	sample_tx_drain(s, sent);
	struct sample_books b;
	rc = sample_down(s, &b);

	uint64_t kinds = 0;
	for (int i = 0; i < PP_KINDS; i++)
		kinds += k.kind[i];
	int counted = x.stats.have_final && kinds == k.packets && k.packets == b.rx_packets;
	int sent_ok = b.tx.tx_packets + b.tx.tx_errors == sent;
	int peer_ok = !s->o.is_sw || (x.peer_frames == b.tx.tx_packets && !x.peer_bad &&
				      x.peer_icmp == k.icmp_replies && x.peer_arp == k.arp_replies);
	if (!x.stats.have_final)
		fprintf(stderr, "gnio_packet_processing: the kernel's last counter snapshot never arrived\n");
	if (rc == SAMPLE_EXIT_OK && !(counted && sent_ok && peer_ok && !k.errors))
		rc = SAMPLE_EXIT_FAIL;

	if (s->o.json) {
		sample_json_begin(s, &b);
		for (int i = 0; i < PP_KINDS; i++)
			sample_json_u64(json_keys[i], k.kind[i]);
		sample_json_u64("icmp_replies", k.icmp_replies);
		sample_json_u64("arp_replies", k.arp_replies);
		sample_json_u64("http_replies", k.http_replies);
		sample_json_u64("http_no_flow", k.http_no_flow);
		sample_json_u64("kernel_packets", k.packets);
		sample_json_u64("tcp_to_cpu", k.tcp_to_cpu);
		sample_json_u64("tcp_to_cpu_dropped", k.tcp_to_cpu_full);
		sample_json_u64("cpu_tx", k.cpu_tx);
		sample_json_u64("tcp_syn_acks", x.tcp.syn_acks);
		sample_json_u64("tcp_fin_acks", x.tcp.fin_acks);
		sample_json_u64("tcp_resets_sent", x.tcp.resets_sent);
		sample_json_u64("tcp_flows_opened", x.tcp.opened);
		sample_json_u64("tcp_flows_closed", x.tcp.closed);
		sample_json_u64("tcp_answers_dropped", x.tcp.tx_full);
		sample_json_u64("tcp_answers_unsent", x.tcp.tx_unsent);
		sample_json_u64("tcp_unhandled_at_stop", x.tcp.unhandled);
		sample_json_u64("tx_again", k.tx_again);
		sample_json_u64("errors", k.errors);
		sample_json_str("last_error", gnio_error_get_name((gnio_error_t)k.last_error));
		sample_json_u64("snapshots", x.stats.snapshots);
		if (s->o.is_sw) {
			sample_json_u64("peer_frames", x.peer_frames);
			sample_json_u64("peer_icmp_replies", x.peer_icmp);
			sample_json_u64("peer_arp_replies", x.peer_arp);
			sample_json_u64("peer_tcp", x.peer_tcp);
			sample_json_u64("peer_bad", x.peer_bad);
		}
		sample_json_bool("ok", rc == SAMPLE_EXIT_OK);
		sample_json_end();
	} else {
		fprintf(stderr, "gnio_packet_processing summary\n");
		sample_print_books(s, &b);
		pp_stats_line(stderr, sample_now() - x.stats.t0, &k);
		fprintf(stderr, "  %-16s %llu in place (ICMP %llu, ARP %llu), %llu HTTP responses, %llu host-built; %llu by "
			"the wire, %llu errors\n", "sent", (unsigned long long)(k.icmp_replies + k.arp_replies),
			(unsigned long long)k.icmp_replies, (unsigned long long)k.arp_replies,
			(unsigned long long)k.http_replies, (unsigned long long)k.cpu_tx, (unsigned long long)b.tx.tx_packets,
			(unsigned long long)b.tx.tx_errors);
		if (x.http)
			fprintf(stderr, "  %-16s %llu segments: %llu SYN+ACK, %llu FIN+ACK, %llu RST; flows %llu opened, %llu "
				"closed; %llu GETs on no open flow; left at stop: %llu answers unsent, %llu segments unread\n",
				"tcp path", (unsigned long long)x.tcp.segments,
				(unsigned long long)x.tcp.syn_acks, (unsigned long long)x.tcp.fin_acks,
				(unsigned long long)x.tcp.resets_sent, (unsigned long long)x.tcp.opened,
				(unsigned long long)x.tcp.closed, (unsigned long long)k.http_no_flow,
				(unsigned long long)x.tcp.tx_unsent, (unsigned long long)x.tcp.unhandled);
		if (s->o.is_sw)
			fprintf(stderr, "  %-16s %llu frames back: %llu echo replies, %llu ARP replies, %llu TCP, %llu wrong\n",
				"sw peer", (unsigned long long)x.peer_frames, (unsigned long long)x.peer_icmp,
				(unsigned long long)x.peer_arp, (unsigned long long)x.peer_tcp, (unsigned long long)x.peer_bad);
		fprintf(stderr, "  %-16s %s\n", "result", rc == SAMPLE_EXIT_OK ? "every frame counted and answered" : "FAILED");
	}
	return rc;
}
