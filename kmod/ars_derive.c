// SPDX-License-Identifier: GPL-2.0
/* Defaults derived from a fabric's base RTT; see ars_derive.h. */
#include <linux/ars.h>
#include "ars_derive.h"

static u64 ars_derive_clamp(u64 v, u64 lo, u64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void ars_derive(u64 rtt, u64 bps, struct ars_derived *d)
{
	(void)bps;	/* the delay scale comes from each port's buffer */
	d->idle_time = ars_derive_clamp(rtt * ARS_DERIVE_IDLE_QRTT / 4,
					ARS_IDLE_TIME_MIN, ARS_IDLE_TIME_MAX);
	d->tau = ars_derive_clamp(rtt * ARS_DERIVE_TAU_QRTT / 4,
				  ARS_SIGNAL_TAU_MIN, ARS_SIGNAL_TAU_MAX);
	d->signal = ARS_DERIVE_SIGNAL;
	d->sampling_interval = ars_derive_clamp(rtt * ARS_DERIVE_INTERVAL_QRTT / 4,
						ARS_SAMPLING_INTERVAL_MIN,
						ARS_SAMPLING_INTERVAL_MAX);
	d->flowlet_window = ars_derive_clamp(rtt * ARS_DERIVE_WINDOW_QRTT / 4,
					     ARS_DERIVE_WINDOW_MIN,
					     ARS_FLOWLET_WINDOW_MAX);
}
