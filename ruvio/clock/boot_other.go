//go:build !linux

package clock

import "time"

// bootTime is the monotonic time since the process started; on platforms
// other than Linux it may stop while the machine is suspended.
func bootTime() time.Duration { return time.Since(processStart) }
