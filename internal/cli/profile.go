package cli

import "github.com/finops-oss/finops/internal/profile"

// startProfiles starts --cpuprofile and returns what ends it and writes
// --memprofile (profile.Start).
func (m *Main) startProfiles() (stop func() error, err error) {
	return profile.Start(m.cpuProfile, m.memProfile)
}
