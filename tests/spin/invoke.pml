/* Fig. 5a/5b invocation over two device-homed lines A (0) and B (1):
 * the core, its cache (answers the home's forwards while the core is
 * blocked), and the device engine behind its directory.
 * Modelled: "not ready" answers (bounded per request) and retries on the
 * other line, the CPU evicting its request line before signalling (data goes
 * home with VICD), request and response virtual channels.
 * Checked: no invalid end state (deadlock), every answer carries the
 * response to the current request (no lost or duplicated message), and with
 * `-N done` that every request is eventually answered.
 * -DBROKEN: the device answers from its stale copy without taking the
 * request line back (no LCI): the checker must find a wrong answer. */
#define CALLS 3
#define MAXNR 2

mtype = { RLDD, VICD, FEVX, VICANS, PEMD };
chan req  = [2] of { mtype, bit, byte };   /* CPU -> home (request VC) */
chan resp = [2] of { mtype, bit, byte, bit }; /* home -> CPU (response VC): line, data, valid */
chan fwd  = [1] of { mtype, bit };          /* home -> CPU cache: take line back */
chan fans = [1] of { mtype, bit, byte };    /* CPU cache -> home: the line's data */

byte cline[2];     /* CPU cache data */
bit  cvalid[2];    /* CPU holds the line */
byte home[2];      /* device-side copy */
bool done = false;

active proctype core() {
	byte seq = 1; bit p = 0; byte d; bit l; bit v; mtype m;
	cvalid[1] = 1;                      /* start: B exclusive at the CPU */
	do
	:: seq > CALLS -> break
	:: seq <= CALLS ->
		atomic { cline[1 - p] = seq; cvalid[1 - p] = 1 }   /* write request (hit or miss+grant folded) */
		if   /* the cache may evict the request line before the load */
		:: atomic { cvalid[1 - p] -> cvalid[1 - p] = 0; req ! VICD(1 - p, cline[1 - p]) }
		:: skip
		fi;
retry:	req ! RLDD(p, 0);
		resp ? m(l, d, v);
		assert(l == p);
		atomic { cline[p] = d; cvalid[p] = 1 };
		p = 1 - p;
		if
		:: v == 0 -> goto retry          /* not ready: load the other line */
		:: v == 1 -> assert(d == seq); seq++
		fi
	od;
	done = true
}

active proctype cache() {
	bit l;
end:	do
	:: fwd ? FEVX(l) ->
		atomic {
			if
			:: cvalid[l] -> fans ! VICANS(l, cline[l]); cvalid[l] = 0
			:: else -> fans ! VICANS(l, 255)   /* not held: nothing to give */
			fi
		}
	od
}

active proctype device() {
	bit x; byte d; byte cur = 0; byte nr = 0; bit busy = 0; mtype m;
end:	do
	:: req ? VICD(x, d) -> home[x] = d
	:: req ? RLDD(x, d) ->
#ifndef BROKEN
		fwd ! FEVX(1 - x);                 /* LCI the other line */
		do
		:: fans ? VICANS(_, d) -> if :: d != 255 -> home[1 - x] = d :: else fi; break
		:: req ? VICD(_, d) -> home[1 - x] = d   /* an eviction overtook the LCI */
		od;
#endif
		if
		:: busy == 0 -> cur = home[1 - x]; busy = 1; nr = 0
		:: busy == 1 -> skip                 /* a retry after "not ready" */
		fi;
		if
		:: nr < MAXNR -> nr++; resp ! PEMD(x, 0, 0)      /* not ready yet */
		:: true -> busy = 0; resp ! PEMD(x, cur, 1)      /* the answer, Exclusive */
		fi
	od
}

ltl done { <> done }
