package e2e

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/finops-oss/finops/internal/publish/publishtest"
)

// TestLeadEmailChargeback: with chargeback configured, each lead's email
// from `finops run` (read back from mailpit) shows the team's charged-back
// total beside its direct cost, though a team's slice of the report has no
// chargeback; the admins' email has the column for every team.
//
// newTeamEnv's week plus gpu-shared, a weekly rental of no team: 1 × RTX
// 4090 × 168 h × ¥0.60 = ¥100.80, the unassigned team's. Without telemetry
// none of it is idle, so the unallocated pool is ¥100.80 and the idle pool
// ¥0; spread evenly over the two teams: ¥50.40 each. Charged back:
//
//	orchid-lab 806.40 + 50.40 = ¥856.80; walnut-lab 201.60 + 50.40 = ¥252.00;
//	unassigned 100.80 − 100.80 = ¥0.00 (856.80 + 252.00 = 1,108.80, the bill).
func TestLeadEmailChargeback(t *testing.T) {
	s3, mp := startTeamServers(t)
	e := newTeamEnv(t, s3, mp, "xlsx, html, json")
	shared := "实例ID,实例名称,GPU型号,计费方式,开始时间,结束时间,应付金额,原价\n" +
		"gpu-shared,共享机,RTX 4090 * 1,包周,2026-11-23 08:00:00,2026-11-30 08:00:00,¥100.80,¥100.80\n"
	if err := os.WriteFile(filepath.Join(e.dir, "bills", "shared.csv"), []byte(shared), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(e.cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("chargeback:\n  unallocated: even\n  idle: even\n")
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := e.run(t, "run", "--week", "2026-W48"); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	inbox := map[string]publishtest.Message{}
	for _, sum := range mp.Messages(t) {
		for _, to := range sum.To {
			inbox[to.Address] = mp.Message(t, sum.ID)
		}
	}
	for _, tc := range []struct {
		to   string
		want []string
	}{
		{"orchid-lead@example.com", []string{"Charged back", "¥856.80", "direct ¥806.40 + shared ¥50.40 + shared idle ¥0.00"}},
		{"walnut-lead@example.com", []string{"Charged back", "¥252.00", "direct ¥201.60 + shared ¥50.40 + shared idle ¥0.00"}},
		{"cto@example.com", []string{"CHARGED BACK", "¥856.80", "¥252.00"}},
	} {
		t.Run(tc.to, func(t *testing.T) {
			msg, ok := inbox[tc.to]
			if !ok {
				t.Fatalf("no email to %s; the inbox holds %d", tc.to, len(inbox))
			}
			text := strings.Join(strings.Fields(msg.Text), " ")
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("the email to %s lacks %q:\n%s", tc.to, w, msg.Text)
				}
			}
		})
	}
}
