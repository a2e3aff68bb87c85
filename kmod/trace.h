/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ars

#if !defined(_ARS_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ARS_TRACE_H

#include <linux/tracepoint.h>
#include <net/net_namespace.h>

/*
 * ars:ars_path_assign - a macro flow was (re)assigned a path: a flowlet
 * started, or a flow failed over. For perf and trace-cmd:
 *   trace-cmd record -e ars:ars_path_assign
 */
TRACE_EVENT(ars_path_assign,
	TP_PROTO(const struct net *net, u32 flow, int old_ifindex,
		 int new_ifindex, u8 reason),
	TP_ARGS(net, flow, old_ifindex, new_ifindex, reason),

	TP_STRUCT__entry(
		__field(u64, netns_cookie)
		__field(u32, flow)
		__field(int, old_ifindex)
		__field(int, new_ifindex)
		__field(u8, reason)
	),

	TP_fast_assign(
		__entry->netns_cookie = net->net_cookie;
		__entry->flow = flow;
		__entry->old_ifindex = old_ifindex;
		__entry->new_ifindex = new_ifindex;
		__entry->reason = reason;
	),

	TP_printk("netns=%llu flow=%u old_ifindex=%d new_ifindex=%d reason=%s",
		  __entry->netns_cookie, __entry->flow, __entry->old_ifindex,
		  __entry->new_ifindex,
		  __print_symbolic(__entry->reason,
				   { ARS_REASON_NEW, "new" },
				   { ARS_REASON_IDLE, "idle" },
				   { ARS_REASON_FAILOVER, "failover" },
				   { ARS_REASON_PACKET, "packet" }))
);

#endif /* _ARS_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
