"""The numbers the paper states in its text and tables (Ruzhanskaia et al.,
"Rethinking Programmed I/O for Fast Devices, Cheap Cores, and Coherent
Interconnects"; /work/shared/papers/000_*.txt). They were measured on
hardware: Enzian (ThunderX-1 + XCVU9P, ECI, PCIe Gen3 x8 loopback) and a PC
(Core i7-7700, PCIe Gen3 x16, VCU118). The figures themselves are images we
do not have; only what the text says is here. One place for all of them:
the figures and Documentation/benchmarking.md cite these.
"""

# Fig. 1 (Sec. 3): XDMA invocation latency, Xilinx driver, polled and interrupt.
FIG1_PC_SPEEDUP = 3.0           # "XDMA over PCIe is about 3 times faster on the PC than on Enzian"
FIG1_POLL_VS_IRQ = 1.0          # "the difference between interrupt-driven and polling ... insignificant"
FIG1_FLAT_UP_TO = 4096          # "almost constant on both platforms up to ... 4KiB, and then increases"

# Fig. 2 (Sec. 3) and Sec. 4: PIO invocation latency over PCIe.
FIG2_PC_SPEEDUP = 2.0           # "for transaction sizes above 32 bytes, the PC is about twice as fast"
FIG2_SPEEDUP_ABOVE = 32         # bytes
SEC4_READ_ROUND_TRIP_NS = 1000  # "a round-trip time cost (about 1 µs) for each word" (Enzian)
SEC4_READ_WORD = 16             # "the ThunderX-1 peripheral access bus is only 128 bits wide"

# Fig. 6 (Sec. 6.1): coherent invocation (Fig. 5a), one cache line each way.
FIG6_MEDIAN_EXCLUSIVE_NS = 900  # "the median latency drops to around 900ns" (answer in Exclusive)
FIG6_MEDIAN_SHARED_NS = 1600    # "a median latency of around 1600ns for the unoptimized protocol"
FIG6_FASTFORWARD_NS = 1150      # FastForward between two ThunderX-1 sockets: "about 1150ns"
SEC61_ECI_ONE_WAY_NS = 150      # "one-way latency at the link layer of about 150ns"

# Fig. 7 (Sec. 6.2): invocation latency against payload size, Enzian.
FIG7_ECI_FLAT_UP_TO = 128       # "constant up to 128 bytes (the size of a cache line on Enzian)"
FIG7_ECI_EXCEEDS_DMA_AT = 8192  # "It is only at 8KiB that ECI invocation latency exceeds that of XMDA"
FIG7_PIO_BEATS_ECI_BELOW = 16   # "PIO over PCIe performs poorly except for payloads under 16 bytes"

# Fig. 12 (Sec. 6.5): Bloom-filter offload, 128-byte elements, k = 8.
FIG12_CPU_ONE_ELEMENT_NS = 2600  # "2.6 µs on the CPU"
FIG12_ECI_ONE_ELEMENT_NS = 1700  # "1.7 µs when offloading with ECI"
FIG12_PIO_CPU_START_NS = 25000   # "the latencies for PIO and CPU both start around 25 µs"
FIG12_DMA_WINS_FROM = 8192       # "After 8 KiB ... XDMA starts to perform better"

# Table 2 (Sec. 6.4): offset + slope fits of the Timely Dataflow offload (Fig. 11).
# name: (ns per byte, overhead in µs, r^2)
TABLE2 = {
    "Baseline": (8.7, 204, 1.00),
    "PCIe-DMA": (3.7, 336, 0.99),
    "PCIe-PIO": (88, 277, 1.00),
    "ECI-PIO": (30, 221, 1.00),
}
TABLE2_FPGA_COMPUTE_NS_PER_B = 3.6  # the paper's estimate of the FPGA's share of every slope

# Table 1 (Sec. 6.3): NIC latency percentiles (µs) on Enzian, MAC in near-end
# loopback. path -> direction -> packet size -> (P50, P95, P99, P100).
TABLE1_SIZES = (64, 1536, 9600)
TABLE1 = {
    "PCIe DMA": {
        "rx": {64: (65.39, 66.36, 67.65, 100.01), 1536: (64.77, 65.59, 66.21, 133.84),
               9600: (65.89, 67.12, 68.05, 123.61)},
        "tx": {64: (10.06, 10.35, 10.59, 16.49), 1536: (10.89, 11.12, 11.33, 30.84),
               9600: (15.73, 16.05, 16.29, 41.99)},
    },
    "PCIe PIO": {
        "rx": {64: (3.25, 3.26, 3.27, 3.39), 1536: (72.89, 72.93, 72.96, 73.05),
               9600: (450.28, 450.35, 450.38, 451.10)},
        "tx": {64: (0.34, 0.36, 0.38, 4.80), 1536: (1.82, 1.84, 1.86, 6.40),
               9600: (9.91, 10.01, 10.07, 10.14)},
    },
    "ECI PIO": {
        "rx": {64: (1.05, 1.06, 1.07, 1.17), 1536: (7.24, 7.29, 7.39, 7.43),
               9600: (39.43, 39.48, 39.50, 39.55)},
        "tx": {64: (1.06, 1.12, 1.14, 1.18), 1536: (3.09, 3.26, 3.50, 3.59),
               9600: (9.07, 9.19, 9.65, 9.95)},
    },
}
