/* SPDX-License-Identifier: MIT */
/*
 * src/eth/nic_steering.c - what the NIC behind an interface does to spread
 * and steer received frames, read with ethtool's ioctls (the same ones
 * `ethtool -l`, `ethtool -x` and `ethtool -n` use): its RX channels, its RSS
 * indirection table, and whether it takes ntuple rules. Read-only: gnio uses
 * what the NIC does and leaves its configuration to the operator.
 */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "core/errmsg.h"
#include "eth/wire.h"

#define COMP "nic"

static int ethtool(int fd, const char *ifname, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? errno : 0;
}

static const char *why(int err)
{
	return err == EOPNOTSUPP ? "the driver has none" : strerror(err);
}

gnio_error_t gnio_wire_nic_steering(const char *ifname, struct gnio_wire_steering *st)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ethtool_rxfh_indir ind = {.cmd = ETHTOOL_GRXFHINDIR, .size = 0};
	struct ethtool_rxnfc cnt = {.cmd = ETHTOOL_GRXCLSRLCNT};
	struct ethtool_value flags = {.cmd = ETHTOOL_GFLAGS};
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return gnio_fail(GNIO_ERROR_OPERATING_SYSTEM, COMP, "socket: %s", strerror(errno));
	/* RX channels: dedicated RX plus combined ones */
	if (ethtool(fd, ifname, &ch) == 0 && ch.rx_count + ch.combined_count)
		st->hw_rx_queues = ch.rx_count + ch.combined_count;
	else
		st->hw_rx_queues = gnio_wire_sysfs_queues(ifname, "rx-");
	/* RSS: the size of the indirection table (asked with size 0) */
	err = ethtool(fd, ifname, &ind);
	if (!err && ind.size) {
		st->rss_table_size = ind.size;
		snprintf(st->rss_how, sizeof(st->rss_how),
			 "the NIC hashes flows over its %u RX queues (%u-entry indirection table; ethtool -X)",
			 st->hw_rx_queues, ind.size);
	} else {
		snprintf(st->rss_how, sizeof(st->rss_how), "no RSS indirection table: %s%s",
			 err ? why(err) : "the driver reports none",
			 st->hw_rx_queues > 1 ? " (the kernel still spreads over the queues its own way)" : "");
	}
	/* ntuple: the driver answers the rule count, and the feature is on */
	err = ethtool(fd, ifname, &cnt);
	if (err) {
		snprintf(st->ntuple_how, sizeof(st->ntuple_how), "no ntuple rules: %s", why(err));
	} else if (ethtool(fd, ifname, &flags) == 0 && !(flags.data & ETH_FLAG_NTUPLE)) {
		snprintf(st->ntuple_how, sizeof(st->ntuple_how),
			 "the NIC has ntuple rules, switched off (ethtool -K %s ntuple on)", ifname);
	} else {
		st->ntuple = 1;
		st->ntuple_rules = cnt.rule_cnt;
		snprintf(st->ntuple_how, sizeof(st->ntuple_how),
			 "ntuple rules steer flows to RX queues (ethtool -N %s ...); %u installed", ifname, cnt.rule_cnt);
	}
	close(fd);
	return GNIO_SUCCESS;
}
