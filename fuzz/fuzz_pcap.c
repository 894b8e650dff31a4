/* SPDX-License-Identifier: MIT */
/* fuzz/fuzz_pcap.c - libFuzzer target: the input as a capture file replayed
 * by the pcap wire. The bytes go to a memory file (memfd) opened as
 * pcap:/proc/self/fd/N; the RX queue is drained through the wire's ops table
 * as the proxy would, into buffers of the queue's size, and the wire's fault
 * report is read. No frame may be longer than its buffer unless flagged so
 * (len > cap: the proxy drops it as too_big), and a report must name a
 * record. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "eth/dev_priv.h"
#include "gnio/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define CAP 2048u
#define BURST 16u

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	gnio_log_set_level(GNIO_LOG_LEVEL_DISABLE); /* damaged files are the point */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("gnio-fuzz-pcap", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char spec[64];
	snprintf(spec, sizeof(spec), "pcap:/proc/self/fd/%d,loop=2", fd);
	struct gnio_dev *dev;
	if (gnio_dev_open(spec, &dev) != GNIO_SUCCESS) {
		close(fd);
		return 0; /* not a capture libpcap accepts, or not Ethernet */
	}
	struct gnio_wire_queue_cfg cfg = {.max_frame = CAP, .ring_size = 64, .burst = BURST};
	void *q;
	if (dev->ops->rxq_open(dev->wire, &cfg, &q) == GNIO_SUCCESS) {
		static uint8_t bufs[BURST][CAP];
		struct gnio_wire_frame f[BURST];
		unsigned got;
		do {
			for (unsigned i = 0; i < BURST; i++)
				f[i] = (struct gnio_wire_frame){.data = bufs[i], .cap = CAP};
			got = dev->ops->rx_burst(q, f, BURST);
			if (got > BURST)
				abort();
		} while (got);
		dev->ops->rxq_close(q);
	}
	gnio_error_t err;
	char msg[256];
	if (gnio_dev_get_wire_error(dev, &err, msg, sizeof(msg)) != GNIO_SUCCESS)
		abort();
	if (err != GNIO_SUCCESS && !strstr(msg, ": record "))
		abort();
	gnio_dev_close(dev);
	close(fd);
	return 0;
}
