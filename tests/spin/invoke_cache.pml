/* Fig. 5a, the steps of include/pioc/coherent/invoke.hpp against the engine
 * of lib/sim/eci/proto_engine.cpp, with a CPU that has a cache:
 *  - loads hit the cache when the line is there (a stale copy included);
 *  - an adversary evicts either line (dirty data goes home) or reads it
 *    speculatively at any point between the CPU's steps;
 *  - a line is stored in two parts (payload, then the control word);
 *  - the process exits at any point and a new one takes the channel over;
 *  - the device resets once at any point (engine state lost).
 * A line is two fields: w (control word: kind * 32 + value) and pay (the
 * id of the call whose request or response it carries).
 * Checked: no request runs twice (ran[] <= 1); a call that returns got the
 * answer to its own request (the payload it copies, after a possible
 * eviction and re-read, is its own); every started process finishes (<> done).
 * Broken twins that the checker must reject:
 *  -DREREAD_SIGNAL  the engine takes any read of a control line as the next
 *                   signal and runs whatever word the other line holds
 *                   (the engine before idempotent reads);
 *  -DNO_RESYNC      a new process starts at parity 0 and sequence 1 without
 *                   a SYNC (the library before sessions);
 *  -DNO_EPOCH       the engine forgets at its reset which SYNC it consumed
 *                   last (the engine before the epoch): a speculative read
 *                   after the reset consumes the session's old SYNC again and
 *                   its SYNC_ACK overwrites the pending request (a call that
 *                   never ends: liveness fails). */
#define NR    0   /* kind "not ready" (valid = 0) */
#define REQ   1
#define RESP  2
#define SYNC  3
#define SACK  4
#define W(k, v) ((k) * 32 + (v))
#define KIND(w) ((w) / 32)
#define VAL(w)  ((w) % 32)
#define CALLS 2    /* calls per process */
#define NOISE 3    /* adversary's evictions and speculative reads */

byte mw[2], mp[2];          /* the device's (home) copy */
byte cw[2], cp[2];          /* the CPU's cached copy */
bit  cv[2], cd[2];          /* held, dirty */
byte ans = 1;               /* the engine's answered line; 2 = unknown (after reset) */
byte taken = 0;             /* the last CPU word the engine consumed */
byte last_sync = 0;         /* the last SYNC it consumed: kept across its reset (block RAM) */
bit  synced = 1;
byte ran[10];               /* executions per call id */
byte dw, ox;                /* the engine's look at the other line */
byte nrfill;                /* 1: answer "not ready", 2: "out of step", in the fill only */
byte noise = 0;
bit  reset_done = 0;
bool done = false;

/* The home takes the CPU's copy back (LCI / FEVX_EH, VICD). */
inline reclaim(y) {
	if :: cv[y] && cd[y] -> mw[y] = cw[y]; mp[y] = cp[y] :: else -> skip fi;
	cv[y] = 0; cd[y] = 0
}

/* The engine's answer to a read (RLDD) of control line x, then the fill. */
inline dev_read(x) {
#ifdef REREAD_SIGNAL
	if :: true ->
#else
	if :: ans == x -> skip        /* the answered line: the same answer again */
	   :: ans == 2 && (KIND(mw[x]) == RESP || KIND(mw[x]) == SACK) -> skip
	                             /* after a reset: a line holding an answer is served as it is */
	   :: ans != x && !(ans == 2 && (KIND(mw[x]) == RESP || KIND(mw[x]) == SACK)) ->
#endif
		ox = 1 - x; reclaim(ox);
		dw = mw[ox];
#ifdef REREAD_SIGNAL
		if :: (KIND(dw) == REQ || KIND(dw) == SYNC) ->
#else
#ifdef NO_EPOCH
		if :: (KIND(dw) == REQ || KIND(dw) == SYNC) && dw != taken ->
#else
		if :: (KIND(dw) == REQ || KIND(dw) == SYNC) && dw != taken && dw != last_sync ->
#endif
#endif
			if
			:: !synced && KIND(dw) != SYNC -> nrfill = 2   /* out of step: in the fill only */
			:: KIND(dw) == SYNC -> taken = dw; last_sync = dw; ans = x; synced = 1; mw[x] = W(SACK, VAL(dw)); mp[x] = 0
			:: synced && KIND(dw) == REQ -> taken = dw; ans = x;
				assert(mp[ox] != 0);            /* the payload came with the word */
				ran[mp[ox]]++; mw[x] = W(RESP, VAL(dw)); mp[x] = mp[ox]
			fi
		:: else -> nrfill = 1    /* speculative or early: nothing runs; "not ready" */
		fi                       /* in the fill only, the line keeps its content */
	fi;
	if
	:: nrfill == 1 -> cw[x] = W(NR, 0); cp[x] = 0; nrfill = 0
	:: nrfill == 2 -> cw[x] = W(SACK, VAL(dw)); cp[x] = 0; nrfill = 0
	:: else -> cw[x] = mw[x]; cp[x] = mp[x]
	fi;
	cv[x] = 1; cd[x] = 0
}

inline load_w(x, v) { atomic { if :: !cv[x] -> dev_read(x) :: else -> skip fi; v = cw[x] } }
inline load_p(x, v) { atomic { if :: !cv[x] -> dev_read(x) :: else -> skip fi; v = cp[x] } }
/* A store misses with RLDX: a plain grant of the home's copy. */
inline grant(x) { if :: !cv[x] -> cw[x] = mw[x]; cp[x] = mp[x]; cv[x] = 1 :: else -> skip fi; cd[x] = 1 }
inline store_w(x, v) { atomic { grant(x); cw[x] = v } }
inline store_p(x, v) { atomic { grant(x); cp[x] = v } }
inline evict(x) { atomic { reclaim(x) } }

byte owner = 1;   /* the process whose turn it is (1, then 2) */
byte finished = 0;

proctype process(byte id; byte first_nonce) {
	bit p = 0; bit ev; byte x = 0; byte r; byte a; byte b; byte seq; byte k = 0; byte cid;
#ifdef NO_RESYNC
	seq = 0;
#else
	seq = first_nonce;
sync:	/* open_session(): SYNC(nonce) opposite the loaded line, until SYNC_ACK(nonce) */
	x = 0;
	do
	:: seq++;                                /* a new number per try: a SYNC consumed by a
	                                            speculative read, its answer lost, is not reused */
	   evict(x); r = 1 - x; store_w(r, W(SYNC, seq));
	   load_w(x, a);
	   if
	   :: a == W(SACK, seq) -> p = 1 - x; break
	   :: a != W(SACK, seq) && KIND(a) != NR -> x = 1 - x
	   :: KIND(a) == NR -> skip
	   fi
	od;
#endif
	do
	:: k == CALLS -> break
	:: k < CALLS ->
		k++; seq++; cid = id * 3 + k;       /* call ids 4, 5 and 7, 8 */
		r = 1 - p;
		store_p(r, cid);                      /* payload, then the word (release) */
		store_w(r, W(REQ, seq));
		ev = 0;
		do                                    /* await(): only our own answer counts */
		:: load_w(p, a);
		   if
		   :: a == W(RESP, seq) -> break
		   :: a == W(SACK, seq) -> goto resync   /* the device restarted */
		   :: a != W(RESP, seq) && a != W(SACK, seq) && KIND(a) != NR && ev ->
		      goto resync                        /* another answer from the device itself: out of step */
		   :: a != W(RESP, seq) && a != W(SACK, seq) && (KIND(a) == NR || !ev) ->
		      evict(p); ev = 1                   /* not ready, or a stale copy: load again */
		   fi
		:: id == 1 -> goto gone                  /* the process exits mid-call */
		od;
		load_p(p, b);                         /* the payload copy: may miss and re-read */
		assert(b == cid && ran[cid] == 1);
		p = 1 - p
	:: id == 1 -> break                        /* the process exits between calls */
	od;
gone:	owner = 2;
	goto out;
resync:
#ifndef NO_RESYNC
	seq = seq + 1;                             /* a fresh session number */
	goto sync;
#endif
out:	finished++
}

active proctype adversary() {
	byte y;
end:	do
	:: noise < NOISE -> if :: y = 0 :: y = 1 fi;
	   if
	   :: atomic { noise++; reclaim(y) }                       /* eviction */
	   :: atomic { noise++; if :: !cv[y] -> dev_read(y) :: else -> skip fi } /* speculative read */
	   fi
#ifndef NO_RESET
	:: atomic { !reset_done -> reset_done = 1; ans = 2; taken = 0; synced = 0 } /* device reset (last_sync stays) */
#endif
	od
}

init {
	byte i;
	run process(1, 1);
	(owner == 2);                              /* the first process has exited */
	run process(2, 16);
	(finished == 2);                           /* both processes are gone */
	for (i : 0 .. 9) { assert(ran[i] <= 1) }
	done = true
}

ltl done { <> done }
