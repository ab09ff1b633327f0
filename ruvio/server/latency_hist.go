package server

import (
	"math/bits"
	"sync/atomic"
)

// cmdHistogram is one command's latency distribution for LATENCY
// HISTOGRAM and INFO latencystats, laid out as the HdrHistogram Redis
// keeps (1 ns to 1 s, two significant digits): 256 sub-buckets per
// power of two, so that the buckets Redis reports and the percentiles it
// computes come out the same for the same durations. Recording is one
// atomic add (the total is the counts' sum, taken when read); 24 KiB per
// command that ran at least once.
type cmdHistogram struct {
	counts [histCounts]atomic.Int64
	// failed counts the calls that answered an error, rejected the
	// commands refused before they ran (INFO commandstats).
	failed, rejected atomic.Int64
}

const (
	histSubBits   = 8 // 256 sub-buckets: two significant decimal digits
	histHalfBits  = histSubBits - 1
	histSubMask   = 1<<histSubBits - 1
	histMaxNs     = 1_000_000_000 // Redis's LATENCY_HISTOGRAM_MAX_VALUE
	histBuckets   = 23            // enough for histMaxNs
	histCounts    = (histBuckets + 1) << histHalfBits
	histFirstLvl  = 1024 // the first level of LATENCY HISTOGRAM's report
	histLevelBase = 2
)

// histIndex is the counts index of a value of ns nanoseconds.
func histIndex(ns int64) int {
	b := bits.Len64(uint64(ns)|histSubMask) - histSubBits
	sub := int(ns >> b)
	return (b+1)<<histHalfBits + sub - 1<<histHalfBits
}

// histValue is the lowest value of the counts index i.
func histValue(i int) int64 {
	b := i>>histHalfBits - 1
	sub := i&(1<<histHalfBits-1) + 1<<histHalfBits
	if b < 0 {
		b, sub = 0, sub-1<<histHalfBits
	}
	return int64(sub) << b
}

// histHighest is the highest value that counts the same as ns.
func histHighest(ns int64) int64 {
	b := bits.Len64(uint64(ns)|histSubMask) - histSubBits
	return (ns>>b)<<b + 1<<b - 1
}

// histLowest is the lowest value that counts the same as ns.
func histLowest(ns int64) int64 {
	b := bits.Len64(uint64(ns)|histSubMask) - histSubBits
	return (ns >> b) << b
}

// record counts one duration, clamped to [1 ns, 1 s] as Redis does.
func (h *cmdHistogram) record(ns int64) {
	ns = min(max(ns, 1), histMaxNs)
	h.counts[histIndex(ns)].Add(1)
}

// snapshot copies the counts, so one reply sees one state.
func (h *cmdHistogram) snapshot() (total int64, counts []int64) {
	counts = make([]int64, histCounts)
	for i := range counts {
		counts[i] = h.counts[i].Load()
		total += counts[i]
	}
	return total, counts
}

// histBucket is one row of LATENCY HISTOGRAM: the calls that took at most
// upToUsec microseconds.
type histBucket struct {
	upToUsec, cumulative int64
}

// cumulative is the report Redis's fillCommandCDF makes: the powers of
// two from 1024 ns, each with the calls that took up to the highest value
// counted with it, the rows whose count did not grow left out.
func cumulative(counts []int64) []histBucket {
	var out []histBucket
	var cum, prev int64
	i := 0
	for lvl := int64(histFirstLvl); lvl <= histHighest(histMaxNs); lvl *= histLevelBase {
		for ; i < len(counts) && i <= histIndex(lvl); i++ {
			cum += counts[i]
		}
		if cum > prev {
			out = append(out, histBucket{histHighest(lvl) / 1000, cum})
		}
		prev = cum
	}
	return out
}

// percentile is HdrHistogram's value at percentile p (0 to 100) in ns:
// the highest value of the bucket in which the p-th percentile call fell,
// the lowest for p = 0.
func percentile(total int64, counts []int64, p float64) int64 {
	p = min(p, 100)
	want := max(int64(p/100*float64(total)+0.5), 1)
	var cum int64
	for i, n := range counts {
		cum += n
		if cum >= want {
			if p == 0 {
				return histLowest(histValue(i))
			}
			return histHighest(histValue(i))
		}
	}
	return 0
}
