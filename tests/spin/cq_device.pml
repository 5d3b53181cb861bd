/* CNI cachable queues between a CPU and a device that is the home of the
 * queue memory (sim::eci::cq_engine; Documentation/protocols.md). The CPU
 * runs the library's cq_ring unchanged; the device can only answer the
 * CPU's line requests, take a line back (LCI: the CPU's dirty data comes
 * home, its copy is invalidated) and write its own memory.
 *
 *  - CPU -> device ring: the CPU writes an entry in two stores (payload,
 *    then the valid bit). A store to a line it does not own asks for it
 *    (RLDX) and waits for the grant. The device takes the line back at any
 *    time after the CPU's first store since the grant (recall_ns > 0), or
 *    the CPU evicts it; either way the data comes home. The device consumes
 *    what its memory shows valid for the current pass.
 *  - device -> CPU ring: the CPU polls its Shared copy (fetching one when
 *    it has none); the device invalidates that copy, then writes its memory.
 *  - Lazy heads: each sender reads the receiver's head only when its ring
 *    looks full.
 *
 * Checked: no deadlock; answers arrive in order, exactly once, each the
 * answer to its request; with `-N done`, every request is answered.
 * -DBROKEN: the device looks at its memory without taking the line back from
 * the CPU first; it never sees a request the CPU holds dirty, and the
 * system deadlocks (the checker must find it). */
#define N 2
#define MSGS 4
#define DEV 0
#define CPU 1
#define EVICTIONS 2

/* CPU -> device ring: home memory, the CPU's copy, and who owns each line */
byte h_data[N]; bit h_valid[N];
byte c_data[N]; bit c_valid[N];
bit  own[N];                 /* DEV (home) or CPU (Exclusive at the CPU) */
bit  stepped[N];             /* the CPU stored to the line since its grant */
byte dhead = 0;              /* the device's head (its memory), read lazily by the CPU */
chan rldx = [N] of { byte }; /* the CPU's request for a line */

/* device -> CPU ring */
byte a_h_data[N]; bit a_h_valid[N];
byte a_c_data[N]; bit a_c_valid[N]; bit a_c_has[N];
byte chead = 0;              /* the CPU's head, read lazily by the device */

byte evictions = 0;
bool done = false;

/* One CPU store of value v to the payload (p = 1) or valid bit (p = 0) of entry e. */
inline cpu_store(e, p, v) {
	do
	:: atomic { own[e] == CPU ->
		if :: p -> c_data[e] = v :: else -> c_valid[e] = v fi;
		stepped[e] = 1; break }
	:: atomic { own[e] == DEV -> rldx!e };
	   (own[e] == CPU)      /* the grant arrived; the store retries */
	od
}

active proctype cpu() {
	byte tail = 0, shadow = 0, m = 1, expect = 1, h = 0, e;
	bit ssense = 1, rsense = 1;
	do
	:: expect > MSGS -> break
	:: m <= MSGS && m == expect ->          /* send the next request */
		do
		:: ((tail + 2*N - shadow) % (2*N)) < N -> break
		:: else -> shadow = dhead        /* lazy read of the device's head */
		od;
		e = tail % N;
		cpu_store(e, 1, m);
		cpu_store(e, 0, ssense);
		tail = (tail + 1) % (2*N);
		if :: tail % N == 0 -> ssense = 1 - ssense :: else fi;
		m++
	:: m > expect ->                        /* poll for the answer */
		e = h % N;
		atomic {
			if
			:: !a_c_has[e] -> a_c_data[e] = a_h_data[e]; a_c_valid[e] = a_h_valid[e]; a_c_has[e] = 1
			:: else
			fi
		};
		if
		:: a_c_valid[e] == rsense ->
			assert(a_c_data[e] == expect + 100);   /* in order, once, the right answer */
			expect++;
			h = (h + 1) % (2*N);
			if :: h % N == 0 -> rsense = 1 - rsense :: else fi;
			chead = h
		:: else
		fi
	:: atomic { evictions < EVICTIONS && (own[0] == CPU || own[1] == CPU) ->
		/* the L2 evicts a written entry: dirty data goes home (VICD) */
		evictions++;
		if
		:: own[0] == CPU -> h_data[0] = c_data[0]; h_valid[0] = c_valid[0]; own[0] = DEV
		:: own[1] == CPU -> h_data[1] = c_data[1]; h_valid[1] = c_valid[1]; own[1] = DEV
		fi }
	od;
	done = true
}

active proctype device() {
	byte in = 0, out = 0, shadow = 0, expect = 1, e, g, pend = 0;
	bit isense = 1, osense = 1;
	do
	:: rldx?g ->                             /* grant Exclusive with the home's data */
		atomic { c_data[g] = h_data[g]; c_valid[g] = h_valid[g]; stepped[g] = 0; own[g] = CPU }
#ifndef BROKEN
	:: atomic { own[in % N] == CPU && stepped[in % N] ->   /* LCI: take the line back */
		e = in % N; h_data[e] = c_data[e]; h_valid[e] = c_valid[e]; own[e] = DEV }
#else
	:: atomic { own[in % N] == CPU && stepped[in % N] -> skip }  /* looks without taking it back */
#endif
	:: pend == 0 && h_valid[in % N] == isense && own[in % N] == DEV ->
		e = in % N;
		assert(h_data[e] == expect);
		pend = h_data[e] + 100;                  /* the function: request + 100 */
		expect++;
		in = (in + 1) % (2*N);
		if :: in % N == 0 -> isense = 1 - isense :: else fi;
		dhead = in
	:: pend != 0 ->                              /* publish the answer */
		do
		:: ((out + 2*N - shadow) % (2*N)) < N -> break
		:: else -> shadow = chead             /* lazy read of the CPU's head */
		od;
		e = out % N;
		atomic { a_c_has[e] = 0;                 /* invalidate the CPU's copy ... */
			 a_h_data[e] = pend; a_h_valid[e] = osense }   /* ... then write */
		out = (out + 1) % (2*N);
		if :: out % N == 0 -> osense = 1 - osense :: else fi;
		pend = 0
	:: done -> break
	od
}

ltl done { <> done }
