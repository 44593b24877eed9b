package main

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/finops-oss/finops/internal/store"
)

// writeTelemetryHistory writes weeks of telemetry before start straight into
// a finops database in its compacted form (gpu_days: one row per GPU and UTC
// day, 1,440 float32 means, NaN where no sample), for the year benchmark:
// ingesting a year of 5-minute samples of 1,000 GPUs (105 million rows) would
// take hours here, and the days would end up compacted anyway. The values are
// the ones writeSMI's samples would give — one sample at second 7 of every
// fifth minute, its whole-percent utilization — and that is checked: the week
// the database already holds, ingested through `finops ingest` and compacted
// by it, must equal what this writer computes for it, byte for byte.
func (fl fleet) writeTelemetryHistory(path string, start time.Time, weeks int) error {
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	db := st.DB()
	ids := map[[2]int]int64{} // (resource, GPU) → gpus.id
	rows, err := db.QueryContext(ctx, `SELECT id, uuid FROM gpus`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id int64
		var uuid string
		if err := rows.Scan(&id, &uuid); err != nil {
			rows.Close()
			return err
		}
		var r, g int
		if _, err := fmt.Sscanf(uuid, "GPU-%08x-0000-4000-8000-%012x", &r, &g); err == nil {
			ids[[2]int{r, g}] = id
		}
	}
	rows.Close()
	if len(ids) != fl.resources*gpusPerRes {
		return fmt.Errorf("%s has %d of the %d benchmark GPUs: ingest the week's smi.csv first", path, len(ids), fl.resources*gpusPerRes)
	}

	// The check: the ingested week, compacted by finops, is what day() gives.
	day0 := start.Unix() / 86400
	var stored []byte
	if err := db.QueryRowContext(ctx, `SELECT util FROM gpu_days WHERE gpu_id = ? AND day = ?`, ids[[2]int{3, 1}], day0+2).Scan(&stored); err != nil {
		return fmt.Errorf("the ingested week is not compacted (%v): ingest it with a clock past utilization.hot_days", err)
	}
	if want := fl.day(start, 3, 1, 2); string(stored) != string(want) {
		return fmt.Errorf("finops' compacted day differs from the generator's: the history would not match the ingested week")
	}

	// One transaction per week: at 10,000 GPUs a week is 70,000 GPU-days
	// (400 MB), and a year in one transaction would double the disk it
	// needs in the WAL.
	n := 0
	for w := 1; w <= weeks; w++ {
		k, err := fl.writeWeekDays(ctx, db, ids, start.AddDate(0, 0, -7*w))
		if err != nil {
			return err
		}
		n += k
	}
	fmt.Printf("wrote %d GPU-days (%d weeks before %s) into %s\n", n, weeks, start.Format(time.DateOnly), path)
	return nil
}

// writeWeekDays writes the GPU-days of the week starting at ws in one
// transaction and returns how many.
func (fl fleet) writeWeekDays(ctx context.Context, db *sql.DB, ids map[[2]int]int64, ws time.Time) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO gpu_days (gpu_id, day, minutes, util, mem_used_max, power_sum, power_n) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	n := 0
	for d := range 7 {
		for r := range fl.resources {
			for g := range gpusPerRes {
				if _, err := ins.ExecContext(ctx, ids[[2]int{r, g}], ws.Unix()/86400+int64(d), 1440/int(fl.step/time.Minute),
					fl.day(ws, r, g, d), nil, 0, 0); err != nil {
					return 0, err
				}
				n++
			}
		}
	}
	return n, tx.Commit()
}

// day is the gpu_days.util blob of GPU g of resource r on day d of the week
// starting at ws: the sample of every fl.step, NaN in between.
func (fl fleet) day(ws time.Time, r, g, d int) []byte {
	b := make([]byte, 4*1440)
	nan := math.Float32bits(float32(math.NaN()))
	for i := range 1440 {
		v := nan
		if m := d*1440 + i; m%int(fl.step/time.Minute) == 0 {
			v = math.Float32bits(float32(int(util(r, g, m))))
		}
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}
