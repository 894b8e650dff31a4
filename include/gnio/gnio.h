/* SPDX-License-Identifier: MIT */
/* gnio/gnio.h - the whole host API. */
#ifndef GNIO_GNIO_H
#define GNIO_GNIO_H

#include "version.h"
#include "error.h"
#include "log.h"
#include "dev.h"
#include "ctx.h"
#include "eth_rxq.h"
#include "eth_txq.h"
#include "gpu.h"
#include "buf_arr.h"
#include "semaphore.h"
#include "pe.h"
#include "runner.h"
#include "rollback.h"
#include "gen.h"
#include "sw.h"
#include "pipeline.h"
#include "flow.h"

#endif /* GNIO_GNIO_H */
