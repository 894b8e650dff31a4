/* SPDX-License-Identifier: MIT */
/* samples/common/sample_peer.c - the other end of an sw:NAME wire: the
 * built-in generator offers frames to the sample's RX queue, and a thread
 * takes every frame the sample's kernel sends (a real wire would carry them
 * away; on sw they would otherwise wait in the peer's FIFO and, once it is
 * full, hold up the kernel's sends). */
#include <sched.h>
#include <string.h>

#include "sample.h"

gnio_error_t sample_peer_open(struct sample_peer *p, struct gnio_dev *dev)
{
	char name[192];
	const char *spec = gnio_devinfo_get_name(gnio_dev_as_devinfo(dev));
	memset(p, 0, sizeof(*p));
	/* "NAME,option=..." names the wire NAME */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(spec, ","), spec);
	return gnio_sw_peer_open(name, &p->peer);
}

gnio_error_t sample_peer_gen_start(struct sample_peer *p, const struct gnio_gen_cfg *cfg)
{
	gnio_error_t err = gnio_sw_peer_gen_attach(p->peer, 0, cfg);
	p->gen_attached = err == GNIO_SUCCESS;
	return err;
}

uint64_t sample_peer_offered(struct sample_peer *p)
{
	struct gnio_sw_peer_stats st;
	if (!p->peer || gnio_sw_peer_get_stats(p->peer, 0, &st) != GNIO_SUCCESS)
		return 0;
	return st.offered;
}

uint64_t sample_peer_gen_stop(struct sample_peer *p)
{
	if (p->peer && p->gen_attached) {
		gnio_sw_peer_gen_detach(p->peer, 0);
		p->gen_attached = 0;
	}
	return sample_peer_offered(p);
}

int sample_peer_gen_done(struct sample_peer *p) { return p->peer ? gnio_sw_peer_gen_done(p->peer, 0) : 1; }

static void *rx_main(void *arg)
{
	struct sample_peer *p = arg;
	uint8_t buf[65536];
	for (;;) {
		/* ACQUIRE(peer.stop): pairs with the RELEASE in
		 * sample_peer_rx_stop; one more pass after it drains the FIFO. */
		int last = __atomic_load_n(&p->stop, __ATOMIC_ACQUIRE);
		unsigned got = 0;
		uint32_t len;
		uint64_t ts;
		while (gnio_sw_peer_recv(p->peer, 0, buf, sizeof(buf), &len, &ts) == GNIO_SUCCESS) {
			if (p->rx_fn)
				p->rx_fn(p->rx_user, buf, len, ts);
			__atomic_store_n(&p->received, p->received + 1, __ATOMIC_RELEASE);
			got++;
		}
		if (last)
			break;
		if (!got)
			sched_yield();
	}
	return NULL;
}

void sample_peer_rx_start(struct sample_peer *p, sample_peer_rx_fn fn, void *user)
{
	p->rx_fn = fn;
	p->rx_user = user;
	p->stop = 0;
	p->running = pthread_create(&p->thread, NULL, rx_main, p) == 0;
}

void sample_peer_rx_stop(struct sample_peer *p)
{
	if (!p->running)
		return;
	__atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
	pthread_join(p->thread, NULL);
	p->running = 0;
}

uint64_t sample_peer_received(const struct sample_peer *p) { return __atomic_load_n(&p->received, __ATOMIC_ACQUIRE); }

void sample_peer_close(struct sample_peer *p)
{
	sample_peer_rx_stop(p);
	sample_peer_gen_stop(p);
	if (p->peer)
		gnio_sw_peer_close(p->peer);
	p->peer = NULL;
}
