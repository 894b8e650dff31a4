/* SPDX-License-Identifier: MIT */
/*
 * src/apps/batch_tuner.h - the built-in apps' adaptive batch (private).
 *
 * A persistent kernel pays for each receive (a poll of the ring across
 * PCIe, barriers, a control pass), so the frames per receive bound its rate
 * when the producer is ahead: on the H200 a 1-queue null wire gave 71 Mpps
 * at batch 1024 and 107-114 at 2048. A bigger batch only hurts when the
 * kernel waits for the producer: each wait gets longer and the kernel polls
 * more entries while the producer writes them (the sw wire lost 11-20 % when
 * the batch grew on "came back full", docs/PERFORMANCE.md).
 *
 * So the signal to grow is a receive that got its whole batch at its first
 * look (gnio_gpu_dev_eth_rxq_last_recv_full_at_once): the kernel is
 * behind. After GNIO_BATCH_TUNER_STREAK of those in a row the batch
 * doubles, up to the ceiling. After shrink_after receives in a row that
 * waited or came back short it halves, down to the floor: the generator-fed
 * sw wire, which a bigger batch only slows, settles there.
 *
 * A consumer that keeps up only thanks to its bigger batch also waits, and
 * would halve, fall behind and double again. Each time a growth undoes a
 * shrink, shrink_after doubles (up to GNIO_BATCH_TUNER_SHRINK_MAX), so such
 * a consumer spends nearly all its time at the batch it needs.
 * floor == ceil is a fixed batch.
 *
 * Every thread of a consumer group runs its own copy on the same inputs
 * (the receive's count and answer are the same for all), so the group
 * agrees on the next batch without a barrier.
 */
#ifndef GNIO_SRC_APPS_BATCH_TUNER_H
#define GNIO_SRC_APPS_BATCH_TUNER_H

#include "gnio/impl/hd.h"

#define GNIO_BATCH_TUNER_STREAK 8
#define GNIO_BATCH_TUNER_SHRINK_MAX 1024u
/* Where an adaptive batch starts, and its floor: gnio run's fixed default
 * before the tuner, which the generator-fed sw wire runs best at. */
#define GNIO_BATCH_TUNER_START 1024u

struct gnio_batch_tuner {
	uint32_t batch; /* max_rx_pkts of the next receive */
	uint32_t floor;
	uint32_t ceil;
	uint32_t peak;         /* the largest batch so far */
	uint32_t full_run;     /* receives full at once, in a row */
	uint32_t wait_run;     /* receives that were not, in a row */
	uint32_t shrink_after; /* wait_run that halves the batch */
	int last_move;         /* +1 grew, -1 shrank, 0 neither yet */
};

/* fixed != 0: always that batch. Else adaptive for a ring of ring_entries:
 * from GNIO_BATCH_TUNER_START (or half the ring, if less) up to half the
 * ring, so the producer always has the other half to fill. */
GNIO_HD void gnio_batch_tuner_init(struct gnio_batch_tuner *t, uint32_t fixed, uint32_t ring_entries)
{
	const uint32_t half = ring_entries / 2u ? ring_entries / 2u : 1u;
	t->full_run = t->wait_run = 0;
	t->shrink_after = GNIO_BATCH_TUNER_STREAK;
	t->last_move = 0;
	if (fixed) {
		t->batch = t->floor = t->ceil = t->peak = fixed;
		return;
	}
	t->floor = half < GNIO_BATCH_TUNER_START ? half : GNIO_BATCH_TUNER_START;
	t->ceil = half > t->floor ? half : t->floor;
	t->batch = t->peak = t->floor;
}

/* After a receive that brought count frames; full_at_once is the queue's
 * answer for it. Returns the next batch. */
GNIO_HD uint32_t gnio_batch_tuner_next(struct gnio_batch_tuner *t, uint32_t count, int full_at_once)
{
	if (t->floor == t->ceil)
		return t->batch;
	if (full_at_once && count >= t->batch) {
		t->wait_run = 0;
		if (++t->full_run >= GNIO_BATCH_TUNER_STREAK) {
			t->full_run = 0;
			if (t->batch < t->ceil) {
				if (t->last_move < 0 && t->shrink_after < GNIO_BATCH_TUNER_SHRINK_MAX)
					t->shrink_after *= 2u; /* that shrink was a mistake */
				t->batch = t->batch * 2u < t->ceil ? t->batch * 2u : t->ceil;
				t->peak = t->batch > t->peak ? t->batch : t->peak;
				t->last_move = 1;
			}
		}
	} else {
		t->full_run = 0;
		if (++t->wait_run >= t->shrink_after) {
			t->wait_run = 0;
			if (t->batch > t->floor) {
				t->batch = t->batch / 2u > t->floor ? t->batch / 2u : t->floor;
				t->last_move = -1;
			}
		}
	}
	return t->batch;
}

#endif /* GNIO_SRC_APPS_BATCH_TUNER_H */
