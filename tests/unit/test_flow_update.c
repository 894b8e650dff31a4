/* SPDX-License-Identifier: MIT */
/*
 * test_flow_update.c - rules added and removed while two threads classify:
 * every frame is counted once, under the rule its reader saw; each rule's
 * hits (live, or final when removed) equal what the readers saw for it, to
 * the frame; a rule that never changes is never missed mid-update.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <cmocka.h>

#include "testutil.h"
#include "flow_frames.h"
#include "gnio/flow.h"

#define NFRAMES 64
#define BURST 32
#define MAX_ID 8192

struct pool {
	uint8_t b[NFRAMES][1600]; /* tf_build writes up to 1600 bytes */
	struct gnio_flow_frame fr[NFRAMES];
};

struct worker {
	pthread_t th;
	struct gnio_flow *flow;
	struct gnio_flow_reader *rd;
	const struct pool *pool;
	uint32_t pinned_id;      /* the rule that never changes */
	int *stop;
	uint64_t frames;
	uint64_t *tally;         /* by rule id; [0] = default */
	uint64_t pinned_missed;  /* dport 7 frames not given to the pinned rule */
};

/* UDP (and every fifth TCP) frames to ports 0..NFRAMES-1 */
static void pool_build(struct pool *pool)
{
	for (int i = 0; i < NFRAMES; i++) {
		struct tf_spec s = {.ipv = 4, .proto = (i % 5) ? 17 : 6, .src = "10.0.0.1", .dst = "10.0.0.2",
				    .sport = 1000, .dport = (uint16_t)i};

		pool->fr[i].len = tf_build(pool->b[i], &s);
		pool->fr[i].data = pool->b[i];
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct gnio_flow_result res[BURST];
	unsigned at = 0;

	while (!__atomic_load_n(w->stop, __ATOMIC_ACQUIRE)) {
		struct gnio_flow_frame fr[BURST];

		for (int i = 0; i < BURST; i++)
			fr[i] = w->pool->fr[(at + (unsigned)i) % NFRAMES];
		at += 7;
		gnio_flow_classify(w->rd, fr, BURST, res);
		for (int i = 0; i < BURST; i++) {
			uint32_t id = res[i].rule_id == GNIO_FLOW_RULE_DEFAULT ? 0 : res[i].rule_id;

			if (id >= MAX_ID)
				abort();
			w->tally[id]++;
			/* frames of dport 7 are the pinned rule's, whatever else changes */
			if (fr[i].data[14 + 20 + 3] == 7 && fr[i].data[14 + 20 + 2] == 0 && res[i].rule_id != w->pinned_id)
				w->pinned_missed++;
		}
		/* one writer; the main thread waits on it before changing rules */
		__atomic_store_n(&w->frames, w->frames + BURST, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_add_remove_under_traffic(void **state)
{
	static struct pool pool;
	struct worker w[2];
	struct gnio_flow *f;
	struct gnio_flow_rule r;
	struct gnio_flow_stats st = {.struct_size = sizeof(st)};
	uint64_t *final = calloc(MAX_ID, sizeof(uint64_t));
	uint8_t *removed = calloc(MAX_ID, 1);
	uint64_t removed_sum = 0, seed = 88172645463325252ull, total;
	uint32_t pinned, id, n, adds = 0, removes = 0, defaults = 0;
	int stop = 0, d;
	uint64_t t0;

	(void)state;
	pool_build(&pool);
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_rule_parse("udp dport 7 -> queue 7", &r, &d));
	assert_ok(gnio_flow_rule_add(f, &r, &pinned));
	for (int i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].flow = f;
		w[i].pool = &pool;
		w[i].pinned_id = pinned;
		w[i].stop = &stop;
		w[i].tally = calloc(MAX_ID, sizeof(uint64_t));
		assert_ok(gnio_flow_reader_create(f, (uint16_t)i, &w[i].rd));
		assert_int_equal(pthread_create(&w[i].th, NULL, work, &w[i]), 0);
	}
	/* Both readers classify before the first change: on a loaded machine
	 * the changes could otherwise all be over before a reader ran. */
	for (int i = 0; i < 2; i++)
		while (!__atomic_load_n(&w[i].frames, __ATOMIC_ACQUIRE))
			sched_yield();
	/* 1200 changes: insert after the pinned rule, remove a random one,
	 * now and then a new default (bounded by count, not time, so a slow
	 * sanitizer build does as much as a fast one) */
	t0 = test_now_ns();
	while (adds + removes < 1200 && test_now_ns() - t0 < 90000000000ull) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		assert_ok(gnio_flow_get_rule_count(f, &n));
		if (n < 2 || (seed % 3 && n < 40)) {
			char line[64];

			snprintf(line, sizeof(line), "%s dport %u-%u -> queue %u", (seed >> 8) & 1 ? "udp" : "tcp",
				 (unsigned)(seed >> 16) % 64, (unsigned)(seed >> 16) % 64 + (unsigned)(seed >> 24) % 8,
				 (unsigned)(seed >> 32) % 4);
			assert_ok(gnio_flow_rule_parse(line, &r, &d));
			assert_ok(gnio_flow_rule_insert(f, 1 + (uint32_t)((seed >> 40) % n), &r, &id));
			adds++;
		} else {
			uint64_t h;

			assert_ok(gnio_flow_get_rule(f, 1 + (uint32_t)((seed >> 40) % (n - 1)), &id, NULL));
			assert_ok(gnio_flow_rule_remove(f, id, &h));
			final[id] = h;
			removed[id] = 1;
			removed_sum += h;
			removes++;
		}
		if (seed % 17 == 0) {
			struct gnio_flow_action a = {.type = (seed >> 5) & 1 ? GNIO_FLOW_ACTION_DROP : GNIO_FLOW_ACTION_KERNEL};

			assert_ok(gnio_flow_set_default(f, &a));
			defaults++;
		}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(w[i].th, NULL), 0);
	print_message("%u adds, %u removes, %u defaults in %.2f s; readers classified %llu + %llu frames\n", adds,
		      removes, defaults, (double)(test_now_ns() - t0) / 1e9, (unsigned long long)w[0].frames,
		      (unsigned long long)w[1].frames);
	assert_int_equal(adds + removes, 1200);
	assert_true(adds > 100 && removes > 100);
	assert_true(w[0].frames > 0 && w[1].frames > 0);
	assert_int_equal(w[0].pinned_missed + w[1].pinned_missed, 0);

	/* the books, twice: with the readers alive and after they are gone */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t sum, hits;

		assert_ok(gnio_flow_get_stats(f, &st));
		total = w[0].frames + w[1].frames;
		assert_int_equal(st.frames, total);
		assert_int_equal(st.removed_hits, removed_sum);
		assert_ok(gnio_flow_get_rule_hits(f, GNIO_FLOW_RULE_DEFAULT, &hits));
		assert_int_equal(hits, w[0].tally[0] + w[1].tally[0]);
		assert_int_equal(st.default_hits, hits);
		sum = st.default_hits + st.removed_hits;
		assert_ok(gnio_flow_get_rule_count(f, &n));
		for (uint32_t i = 0; i < n; i++) {
			assert_ok(gnio_flow_get_rule(f, i, &id, NULL));
			assert_ok(gnio_flow_get_rule_hits(f, id, &hits));
			if (hits != w[0].tally[id] + w[1].tally[id])
				fail_msg("rule %u: %llu hits, readers saw %llu", id, (unsigned long long)hits,
					 (unsigned long long)(w[0].tally[id] + w[1].tally[id]));
			sum += hits;
		}
		assert_int_equal(sum, total);
		for (uint32_t i = 1; i < MAX_ID; i++)
			if (removed[i] && final[i] != w[0].tally[i] + w[1].tally[i])
				fail_msg("removed rule %u: final %llu hits, readers saw %llu", i,
					 (unsigned long long)final[i], (unsigned long long)(w[0].tally[i] + w[1].tally[i]));
		if (pass == 0)
			for (int i = 0; i < 2; i++)
				assert_ok(gnio_flow_reader_destroy(w[i].rd));
	}
	for (int i = 0; i < 2; i++)
		free(w[i].tally);
	free(final);
	free(removed);
	assert_ok(gnio_flow_destroy(f));
}

/* Whole rule sets replaced while two readers classify (a reload): every
 * frame counted by a rule of the old set or of the new one, the replaced
 * rules' hits in removed_hits; a text that does not parse changes nothing. */
static void test_replace_under_traffic(void **state)
{
	static struct pool pool;
	static const char *const sets[] = {
		"udp dport 0-20 -> queue 1\ntcp -> drop\nudp dport 21-40 -> kernel\n",
		"# the second set\nudp -> queue 2\ndefault -> drop\n",
		"tcp dport 10-63 -> queue 3\nudp dport 5 -> kernel\nudp dport 6 -> gnio\ndefault -> gnio\n",
	};
	struct worker w[2];
	struct gnio_flow *f;
	struct gnio_flow_stats st = {.struct_size = sizeof(st)};
	uint8_t *current = calloc(MAX_ID, 1);
	uint32_t n, id, reloads = 0, refused = 0;
	int stop = 0;

	(void)state;
	pool_build(&pool);
	assert_ok(gnio_flow_create(NULL, &f));
	assert_ok(gnio_flow_load_string(f, sets[0], "set0"));
	for (int i = 0; i < 2; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].flow = f;
		w[i].pool = &pool;
		w[i].stop = &stop;
		w[i].tally = calloc(MAX_ID, sizeof(uint64_t));
		assert_ok(gnio_flow_reader_create(f, (uint16_t)i, &w[i].rd));
		assert_int_equal(pthread_create(&w[i].th, NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		while (!__atomic_load_n(&w[i].frames, __ATOMIC_ACQUIRE))
			sched_yield();
	for (int round = 0; round < 300; round++) {
		if (round % 10 == 9) {
			/* refused on line 2: the rules in force stay, ids and all */
			uint32_t before_n, after_n, before_id, after_id;

			assert_ok(gnio_flow_get_rule_count(f, &before_n));
			assert_ok(gnio_flow_get_rule(f, 0, &before_id, NULL));
			assert_gnio(gnio_flow_replace_string(f, "udp -> queue 1\nudp dport 99999 -> drop\n", "bad"),
				    GNIO_ERROR_INVALID_VALUE);
			assert_non_null(strstr(gnio_last_error_msg(), "bad:2:"));
			assert_ok(gnio_flow_get_rule_count(f, &after_n));
			assert_ok(gnio_flow_get_rule(f, 0, &after_id, NULL));
			assert_int_equal(after_n, before_n);
			assert_int_equal(after_id, before_id);
			refused++;
			continue;
		}
		assert_ok(gnio_flow_replace_string(f, sets[round % 3], "set"));
		reloads++;
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(w[i].th, NULL), 0);
	print_message("%u reloads, %u refused; readers classified %llu + %llu frames\n", reloads, refused,
		      (unsigned long long)w[0].frames, (unsigned long long)w[1].frames);

	/* the last set (round 298: sets[1]) is in force, with its default */
	assert_ok(gnio_flow_get_rule_count(f, &n));
	assert_int_equal(n, 1);
	{
		struct gnio_flow_action d;

		assert_ok(gnio_flow_get_default(f, &d));
		assert_int_equal(d.type, GNIO_FLOW_ACTION_DROP);
	}
	assert_ok(gnio_flow_get_stats(f, &st));
	assert_int_equal(st.reloads, reloads);
	uint64_t total = w[0].frames + w[1].frames, sum = 0, hits, replaced = 0;
	assert_int_equal(st.frames, total);
	for (uint32_t i = 0; i < n; i++) {
		assert_ok(gnio_flow_get_rule(f, i, &id, NULL));
		assert_ok(gnio_flow_get_rule_hits(f, id, &hits));
		assert_int_equal(hits, w[0].tally[id] + w[1].tally[id]);
		current[id] = 1;
		sum += hits;
	}
	for (uint32_t i = 1; i < MAX_ID; i++)
		if (!current[i])
			replaced += w[0].tally[i] + w[1].tally[i];
	assert_int_equal(st.removed_hits, replaced); /* every old rule's frames, no more, no less */
	assert_int_equal(st.default_hits, w[0].tally[0] + w[1].tally[0]);
	assert_int_equal(sum + st.default_hits + st.removed_hits, total);
	assert_true(replaced > 0);
	for (int i = 0; i < 2; i++) {
		assert_ok(gnio_flow_reader_destroy(w[i].rd));
		free(w[i].tally);
	}
	free(current);
	assert_ok(gnio_flow_destroy(f));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_remove_under_traffic),
		cmocka_unit_test(test_replace_under_traffic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
