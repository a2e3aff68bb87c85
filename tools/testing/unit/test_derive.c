// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the derived defaults (kmod/ars_derive.c): each figure is
 * its multiple of the base RTT, and stays within its attribute's limits
 * whatever RTT an operator gives.
 */
#include "harness.h"
#include "ars_derive.h"
#include <linux/ars.h>

#define US	1000ULL
#define GBIT	1000000000ULL

static bool derive_multiples_of_rtt(void)
{
	struct ars_derived d;

	ars_derive(8720, 400 * GBIT, &d);	/* the seed's fabric */
	CHECK(d.idle_time == 8720 * ARS_DERIVE_IDLE_QRTT / 4);
	CHECK(d.tau == 8720 * ARS_DERIVE_TAU_QRTT / 4);
	CHECK(d.sampling_interval == 8720 * ARS_DERIVE_INTERVAL_QRTT / 4);
	CHECK(d.flowlet_window == 8720 * ARS_DERIVE_WINDOW_QRTT / 4);
	CHECK(d.flowlet_window == 2180);	/* the sim's quarter RTT */
	CHECK(d.signal == ARS_DERIVE_SIGNAL);
	return true;
}

static bool derive_within_limits(void)
{
	struct ars_derived d;

	ars_derive(1, 0, &d);
	CHECK(d.idle_time == ARS_IDLE_TIME_MIN);
	CHECK(d.tau == ARS_SIGNAL_TAU_MIN);
	CHECK(d.sampling_interval == ARS_SAMPLING_INTERVAL_MIN);
	CHECK(d.flowlet_window == 1);	/* a window, not off */
	ars_derive(10000000000ULL, 0, &d);	/* 10 s */
	CHECK(d.flowlet_window == ARS_FLOWLET_WINDOW_MAX);
	CHECK(d.idle_time == ARS_IDLE_TIME_MAX);
	CHECK(d.tau == ARS_SIGNAL_TAU_MAX);
	CHECK(d.sampling_interval == ARS_SAMPLING_INTERVAL_MAX);
	return true;
}

int main(void)
{
	static const struct unit_test tests[] = {
		UNIT_TEST(derive_multiples_of_rtt),
		UNIT_TEST(derive_within_limits),
	};

	return unit_run(tests, ARRAY_SIZE(tests));
}
