/* SPDX-License-Identifier: MIT */
/* tools/gnio/run_report.c - `gnio run`'s summary: text for people, one JSON
 * object (the last line of stdout) for scripts. */
#include <stdio.h>
#include <string.h>
#include "json.h"
#include "run.h"

struct rates {
	double secs, mpps, gbps, mpps_steady, gbps_steady;
};

static struct rates rates_of(const struct run_live *lv)
{
	struct rates r;
	r.secs = lv->t_end - lv->t0 > 0 ? lv->t_end - lv->t0 : 1e-9;
	r.mpps = (double)lv->measured / r.secs / 1e6;
	r.gbps = (double)lv->measured_bytes * 8 / r.secs / 1e9;
	double steady = lv->t_warm > 0 && lv->t_end - lv->t_warm > 0.5 ? lv->t_end - lv->t_warm : 0;
	r.mpps_steady = steady ? (double)(lv->measured - lv->pk_warm) / steady / 1e6 : r.mpps;
	r.gbps_steady = steady ? (double)(lv->measured_bytes - lv->by_warm) * 8 / steady / 1e9 : r.gbps;
	return r;
}

static const char *scope_name(int s)
{
	return s == GNIO_APP_SCOPE_THREAD ? "thread" : s == GNIO_APP_SCOPE_WARP ? "warp" : "block";
}

void run_report_text(const struct run_state *s, const struct run_live *lv, const struct run_result *r)
{
	const struct run_opts *o = s->o;
	struct rates rt = rates_of(lv);
	printf("\ngnio run summary\n");
	printf("  wire            %s\n", o->wire);
	printf("  device          %s (%s)\n", s->dev_id, s->dev_name);
	printf("  app             %s\n", o->app->name);
	printf("  queues          %u\n", s->nq);
	printf("  duration        %.2f s\n", rt.secs);
	printf("  offered         %llu\n", (unsigned long long)r->offered);
	printf("  rx_packets      %llu (handed to the kernel)\n", (unsigned long long)r->rx.rx_packets);
	printf("  kernel_packets  %llu (processed by the kernel)\n", (unsigned long long)r->ks.packets);
	printf("  dropped         %llu", (unsigned long long)r->rx.dropped_total);
	for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
		if (r->rx.dropped[i])
			printf(" %s=%llu", gnio_drop_reason_name(i), (unsigned long long)r->rx.dropped[i]);
	printf("\n  tx_packets      %llu", (unsigned long long)r->tx.tx_packets);
	if (o->app->needs_tx)
		printf(" (in place %llu, copied by gnio %llu; wire: %s)", (unsigned long long)r->tx.tx_in_place,
		       (unsigned long long)r->tx.tx_copies, s->tx_path);
	printf("\n  rate            %.3f Mpps, %.3f Gbit/s (kernel, over the run)\n", rt.mpps, rt.gbps);
	printf("  steady rate     %.3f Mpps, %.3f Gbit/s (after the first second)\n", rt.mpps_steady, rt.gbps_steady);
	if (s->nq > 1)
		for (unsigned i = 0; i < s->nq; i++)
			printf("    queue %-2u      kernel %llu, rx %llu, dropped %llu%s%s\n", i,
			       (unsigned long long)r->qks[i].packets, (unsigned long long)r->fin.rx[i].rx_packets,
			       (unsigned long long)r->fin.rx[i].dropped_total, s->ngpu > 1 ? ", on " : "",
			       s->ngpu > 1 ? s->qdev[i] : "");
	if (r->has_flow) {
		printf("  steering        %llu frames moved between queues by the rules\n",
		       (unsigned long long)r->rx.steered_out);
		for (uint32_t i = 0; i < r->flow.nrules; i++)
			printf("    %12llu  %s\n", (unsigned long long)r->flow.rules[i].hits, r->flow.rules[i].text);
		printf("    %12llu  %s\n", (unsigned long long)r->flow.dflt.hits, r->flow.dflt.text);
	}
	if (!strcmp(o->app->name, "classify")) {
		printf("  protocols      ");
		for (int i = 0; i < GNIO_PROTO_COUNT; i++)
			if (r->ks.proto[i])
				printf(" %s=%llu", gnio_proto_name(i), (unsigned long long)r->ks.proto[i]);
		printf("\n");
	}
	if (!strcmp(o->app->name, "verify")) {
		printf("  verify          %llu not intact, %llu out of order, %llu changed while held (hold %llu us)\n",
		       (unsigned long long)r->ks.verify_fail, (unsigned long long)r->ks.seq_reorder,
		       (unsigned long long)r->ks.changed_in_hold, (unsigned long long)o->hold_us);
		if (r->verify_reconciled)
			printf("                  %llu missing between stamps; drops not seen as gaps: %llu\n",
			       (unsigned long long)r->ks.seq_gap, (unsigned long long)r->verify_unaccounted);
	}
	printf("  books           offered %s rx_packets + dropped%s\n", r->balanced ? "==" : "!=",
	       r->consumed ? "; every delivered frame processed" : "; KERNEL MISSED FRAMES");
}

void run_report_json(const struct run_state *s, const struct run_live *lv, const struct run_result *r)
{
	const struct run_opts *o = s->o;
	struct rates rt = rates_of(lv);
	uint64_t proto_sum = 0;
	for (int i = 0; i < GNIO_PROTO_COUNT; i++)
		proto_sum += r->ks.proto[i];
	struct json j;
	json_init(&j, stdout, 0);
	json_obj_begin(&j, NULL);
	json_str(&j, "wire", o->wire);
	json_str(&j, "device", s->dev_id);
	json_str(&j, "device_name", s->dev_name);
	json_str(&j, "backend", s->on_cpu ? "cpu" : "cuda");
	json_str(&j, "app", o->app->name);
	json_u64(&j, "queues", s->nq);
	json_u64(&j, "frame_size", o->size);
	json_str(&j, "proto", gnio_gen_proto_name(o->gen.proto));
	json_dbl(&j, "duration_s", rt.secs);
	json_u64(&j, "offered", r->offered);
	json_str(&j, "offered_source", r->offered_from_generator ? "generator" : "wire");
	json_u64(&j, "rx_packets", r->rx.rx_packets);
	json_u64(&j, "rx_bytes", r->rx.rx_bytes);
	json_u64(&j, "kernel_packets", r->ks.packets);
	json_u64(&j, "kernel_bytes", r->ks.bytes);
	json_obj_begin(&j, "dropped");
	for (int i = 0; i < GNIO_DROP_REASON_COUNT; i++)
		json_u64(&j, gnio_drop_reason_name(i), r->rx.dropped[i]);
	json_obj_end(&j);
	json_u64(&j, "dropped_total", r->rx.dropped_total);
	json_u64(&j, "tx_packets", r->tx.tx_packets);
	json_u64(&j, "tx_in_place", r->tx.tx_in_place);
	json_u64(&j, "tx_copies", r->tx.tx_copies);
	json_str(&j, "tx_path", s->tx_path);
	json_u64(&j, "kernel_tx_packets", r->ks.tx_packets);
	json_u64(&j, "kernel_tx_again", r->ks.tx_again);
	if (o->app->needs_tx && r->offered_from_generator)
		json_u64(&j, "peer_received", r->peer_received);
	json_u64(&j, "tx_errors", r->tx.tx_errors);
	json_dbl(&j, "mpps", rt.mpps);
	json_dbl(&j, "gbps", rt.gbps);
	json_dbl(&j, "mpps_steady", rt.mpps_steady);
	json_dbl(&j, "gbps_steady", rt.gbps_steady);
	json_bool(&j, "flow_control", o->flow_control);
	json_bool(&j, "inline_header", o->inline_header);
	json_str(&j, "poll", o->poll == RUN_POLL_BUSY ? "busy" : "adaptive");
	json_str(&j, "wire_error", lv->wire_error);
	json_str(&j, "rx_mem", o->mem_name);
	json_u64(&j, "ring", run_opts_ring(o));
	json_u64(&j, "burst", run_opts_burst(o));
	if (o->batch)
		json_u64(&j, "batch", o->batch);
	else
		json_str(&j, "batch", "auto");
	json_str(&j, "recv_scope", scope_name(o->recv_scope));
	json_u64(&j, "watchers", s->on_cpu ? 0 : o->watchers); /* the CPU kernels have none */
	if (o->app->needs_tx)
		json_str(&j, "send_scope", scope_name(o->send_scope));
	if (!strcmp(o->app->name, "classify")) {
		json_obj_begin(&j, "protocols");
		for (int i = 0; i < GNIO_PROTO_COUNT; i++)
			json_u64(&j, gnio_proto_name(i), r->ks.proto[i]);
		json_obj_end(&j);
		json_u64(&j, "protocols_total", proto_sum);
	}
	json_u64(&j, "kernel_errors", r->ks.errors);
	if (!strcmp(o->app->name, "touch"))
		json_u64(&j, "digest", r->ks.digest);
	if (!strcmp(o->app->name, "verify")) {
		json_obj_begin(&j, "verify");
		json_u64(&j, "not_intact", r->ks.verify_fail);
		json_u64(&j, "out_of_order", r->ks.seq_reorder);
		json_u64(&j, "changed_in_hold", r->ks.changed_in_hold);
		json_u64(&j, "hold_us", o->hold_us);
		json_u64(&j, "seq_gap", r->ks.seq_gap);
		json_bool(&j, "reconciled", r->verify_reconciled);
		json_u64(&j, "unaccounted", r->verify_unaccounted);
		json_bool(&j, "ok", r->verify_ok);
		json_obj_end(&j);
	}
	json_bool(&j, "balanced", r->balanced);
	json_arr_begin(&j, "per_queue");
	for (unsigned i = 0; i < s->nq; i++) {
		json_obj_begin(&j, NULL);
		json_u64(&j, "queue", i);
		json_str(&j, "device", s->qdev[i]);
		json_u64(&j, "rx_packets", r->fin.rx[i].rx_packets);
		json_u64(&j, "kernel_packets", r->qks[i].packets);
		json_u64(&j, "batch", r->qks[i].batch_now);
		json_u64(&j, "batch_peak", r->qks[i].batch_peak);
		json_u64(&j, "dropped_total", r->fin.rx[i].dropped_total);
		if (r->has_flow) {
			json_u64(&j, "steered_out", r->fin.rx[i].steered_out);
			json_u64(&j, "steered_in", r->fin.rx[i].steered_in);
		}
		if (r->fin.has_tx[i]) {
			json_u64(&j, "tx_packets", r->fin.tx[i].tx_packets);
			json_u64(&j, "tx_errors", r->fin.tx[i].tx_errors);
		}
		json_obj_end(&j);
	}
	json_arr_end(&j);
	/* each device's share: queue i runs on device i % ngpu */
	json_arr_begin(&j, "per_device");
	for (unsigned k = 0; k < s->ngpu; k++) {
		uint64_t rx = 0, kp = 0, nq = 0;
		for (unsigned i = k; i < s->nq; i += s->ngpu) {
			rx += r->fin.rx[i].rx_packets;
			kp += r->qks[i].packets;
			nq++;
		}
		json_obj_begin(&j, NULL);
		json_str(&j, "device", s->qdev[k]);
		json_u64(&j, "queues", nq);
		json_u64(&j, "rx_packets", rx);
		json_u64(&j, "kernel_packets", kp);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	if (r->has_flow) {
		json_u64(&j, "steered", r->rx.steered_out);
		flowreport_json_of(&j, &r->flow);
		/* frames = the rules' hits + the default's + removed_hits */
		json_obj_begin(&j, "flow");
		json_u64(&j, "frames", r->flow.stats.frames);
		json_u64(&j, "removed_hits", r->flow.stats.removed_hits);
		json_u64(&j, "xdp_frames", r->flow.stats.xdp_frames); /* of frames, in the kernel */
		json_u64(&j, "reloads", r->flow.stats.reloads);
		json_u64(&j, "reloads_refused", lv->reloads_refused);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	json_finish(&j);
}
