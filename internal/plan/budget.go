package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// GPUFit is how a scenario fits one GPU model, what it costs there at best,
// and the two rankings metrics.md asks for.
type GPUFit struct {
	GPUModel     string   `json:"gpu_model"`
	VRAMGB       float64  `json:"vram_gb"`
	UsableGB     float64  `json:"usable_gb"`
	TFLOPS       float64  `json:"tflops"`
	Fits         bool     `json:"fits"`
	MinGPUs      int      `json:"min_gpus"` // the fewest cards that hold the scenario (per replica for inference)
	Why          string   `json:"why"`
	CardHours    float64  `json:"card_hours,omitempty"` // jobs: estimated card-hours, all runs, before buffer
	CardHoursHow string   `json:"card_hours_how,omitempty"`
	Serving      *Serving `json:"serving,omitempty"`
	// Cost per effective TFLOP-hour: the cheapest price per card-hour (hourly,
	// else monthly / 730 h) over TFLOPS × MFU. Nil without a price.
	CostPerTFLOPHour *float64 `json:"cost_per_effective_tflop_hour,omitempty"`
	TFLOPHourBasis   string   `json:"tflop_hour_basis,omitempty"`
	BestCost         *float64 `json:"best_cost,omitempty"` // cheapest option on this GPU (meeting the deadline where any does)
	BestOption       string   `json:"best_option,omitempty"`
	RankByCost       int      `json:"rank_by_cost,omitempty"`       // 1 = cheapest for this scenario
	RankByTFLOPHour  int      `json:"rank_by_tflop_hour,omitempty"` // 1 = cheapest compute
}

// Option is one way to rent for a scenario: a GPU model from a provider in
// one mode, priced with the risk range.
type Option struct {
	GPUModel      string  `json:"gpu_model"`
	Provider      string  `json:"provider"`
	Mode          string  `json:"mode"` // hourly, monthly, spot
	GPUs          int     `json:"gpus"`
	WallHours     float64 `json:"wall_hours"`     // how long the work runs on these cards (the span for reservations and serving)
	CardHours     float64 `json:"card_hours"`     // card-hours paid for (monthly: the cards × the rented days × 24)
	Days          float64 `json:"days,omitempty"` // monthly: days rented
	Months        float64 `json:"months,omitempty"`
	Buffer        float64 `json:"concurrency_buffer"`
	SpotInflation float64 `json:"spot_inflation,omitempty"`
	Price         float64 `json:"price"`      // in the plan's currency
	PriceUnit     string  `json:"price_unit"` // card-hour or card-month
	PriceSource   string  `json:"price_source"`
	Base          float64 `json:"base"` // before the risk coefficient
	Risk          float64 `json:"risk"`
	RiskHigh      float64 `json:"risk_high"`
	CostLow       float64 `json:"cost"`      // base × risk, to the cent
	CostHigh      float64 `json:"cost_high"` // base × risk_high, to the cent
	MeetsDeadline bool    `json:"meets_deadline"`
	How           string  `json:"how"`
}

// label names an option in one short phrase.
func (o Option) label() string {
	return fmt.Sprintf("%d × %s %s (%s)", o.GPUs, o.GPUModel, o.Mode, o.Provider)
}

// chooseParallelism resolves "auto": inference and full training shard the
// model (tensor parallelism, ZeRO-3/FSDP: nobody full-finetunes a 7B on one
// card); LoRA, QLoRA and data jobs replicate it on every card (data
// parallel, the default of LLaMA-Factory and accelerate), unless no GPU in
// the table holds it whole, in which case they shard too. auto reports
// whether the choice was the planner's, which limits sharded training to
// cards with NVLink (fitGPU).
func chooseParallelism(s *spec, mem Memory, gpus []GPU, a Assumptions) (par string, auto bool, why string) {
	switch s.parallelism {
	case ParallelReplicate:
		return ParallelReplicate, false, "replicate (given): every card holds the whole estimate"
	case ParallelShard:
		return ParallelShard, false, "shard (given): the estimate is split over the cards"
	}
	switch s.kind {
	case KindInference:
		return ParallelShard, true, "auto → shard: a model that does not fit one card is split over several (tensor parallelism)"
	case KindFull, KindPretrain:
		return ParallelShard, true, "auto → shard: full training splits weights, gradients and optimizer state over the cards (ZeRO-3 / FSDP), on cards with NVLink"
	}
	for _, g := range gpus {
		if mem.TotalGB <= a.UsableVRAM*g.VRAMGB+1e-9 {
			return ParallelReplicate, true, "auto → replicate: " + s.kind + " runs data-parallel, so every card holds the whole estimate (LLaMA-Factory's default); cards that cannot are ruled out"
		}
	}
	return ParallelShard, true, "auto → shard: no card in the table holds the whole estimate, so it is split over cards with NVLink (DeepSpeed ZeRO-3 / FSDP)"
}

// fitGPU says whether and on how many cards of g the scenario fits.
func fitGPU(s *spec, mem Memory, g GPU, a Assumptions, par string, auto bool) GPUFit {
	usable := a.UsableVRAM * g.VRAMGB
	f := GPUFit{GPUModel: g.Model, VRAMGB: g.VRAMGB, UsableGB: usable, TFLOPS: g.TFLOPS}
	need := mem.TotalGB
	room := fmt.Sprintf("%s GB (%s × %s GB)", fixed(usable, 2), num(a.UsableVRAM), num(g.VRAMGB))
	n := int(math.Ceil(need/usable - 1e-9))
	training := s.kind != KindInference
	switch {
	case par == ParallelReplicate && n <= 1:
		f.Fits, f.MinGPUs = true, 1
		f.Why = fmt.Sprintf("%s GB ≤ %s: fits one card", fixed(need, 2), room)
	case par == ParallelReplicate:
		f.Why = fmt.Sprintf("%s GB > %s: one card cannot hold a whole copy (sharded it would take %d cards: parallelism: shard)", fixed(need, 2), room, n)
	case auto && training && n > 1 && !g.NVLink:
		f.Why = fmt.Sprintf("%s GB > %s, and sharding it over %d cards without NVLink (ZeRO-3 over PCIe) runs far below MFU %s: ruled out (parallelism: shard plans it anyway)",
			fixed(need, 2), room, n, num(s.mfu))
	case s.maxGPUs > 0 && n > s.maxGPUs:
		f.MinGPUs = n
		f.Why = fmt.Sprintf("ceil(%s GB / %s) = %d cards, more than max_gpus %d", fixed(need, 2), room, n, s.maxGPUs)
	default:
		f.Fits, f.MinGPUs = true, n
		f.Why = fmt.Sprintf("ceil(%s GB / %s) = %s", fixed(need, 2), room, cardsText(n))
		if n > 8 {
			f.Why += ", more than one 8-GPU server"
		}
	}
	return f
}

// options lists every way to rent g for the scenario: each price row for g
// (from the pinned provider, if any) in each mode it offers.
func options(s *spec, fit *GPUFit, r *resolved, gi int) []Option {
	if !fit.Fits {
		return nil
	}
	cards := fit.MinGPUs
	if s.work == "serving" {
		cards = fit.Serving.Cards
	}
	if s.gpus > 0 {
		if s.gpus < fit.MinGPUs {
			return nil // noPlanReason says so when no GPU model is left
		}
		cards = s.gpus
	}
	var out []Option
	for _, pr := range r.prices {
		if pr.gpu != gi || (s.provider != "" && !strings.EqualFold(strings.TrimSpace(pr.Provider), s.provider)) {
			continue
		}
		src := priceSource(pr, r.currency)
		for _, m := range []struct {
			mode string
			p    *float64
		}{{ModeHourly, pr.Hourly}, {ModeMonthly, pr.Monthly}, {ModeSpot, pr.Spot}} {
			if m.p == nil || (m.mode == ModeSpot && (!s.interruptible || s.work == "reservation")) {
				continue
			}
			o := Option{GPUModel: r.gpus[gi].Model, Provider: strings.TrimSpace(pr.Provider), Mode: m.mode,
				Price: *m.p * pr.fx, PriceUnit: "card-hour", PriceSource: src[m.mode], Risk: s.risk, RiskHigh: s.riskHigh,
				MeetsDeadline: true}
			if m.mode == ModeMonthly {
				o.PriceUnit = "card-month"
			}
			if s.work == "reservation" || s.work == "serving" {
				priceSpan(&o, s, fit, cards, r)
			} else {
				priceJob(&o, s, fit, cards, r)
			}
			o.CostLow = roundCents(o.Base * o.Risk)
			o.CostHigh = roundCents(o.Base * o.RiskHigh)
			o.How += fmt.Sprintf(" × risk %s = %s (%s at %s)", num(o.Risk), money(r.currency, o.CostLow), money(r.currency, o.CostHigh), num(o.RiskHigh))
			out = append(out, o)
		}
	}
	return out
}

// priceSpan prices cards held for the scenario's span: a reservation (24 h
// a day) or an inference service (its serving hours a day). No concurrency
// buffer: nothing queues for cards that are held.
func priceSpan(o *Option, s *spec, fit *GPUFit, cards int, r *resolved) {
	a, price, span := r.a, money(r.currency, o.Price), s.spanDays
	o.GPUs, o.WallHours = cards, span*24
	hoursPerDay := 24.0
	if s.work == "serving" {
		hoursPerDay = s.servingHours
		if float64(cards) < fit.Serving.BusyCardHoursPerDay/s.servingHours-1e-9 {
			o.MeetsDeadline = false // pinned or capped cards cannot carry the traffic
		}
	}
	switch o.Mode {
	case ModeMonthly:
		o.Days = span
		o.Months = math.Max(span, a.MonthlyMinDays) / 30
		o.CardHours = float64(cards) * span * 24
		o.Base = float64(cards) * o.Price * o.Months
		o.How = fmt.Sprintf("%s × %s/card-month × %s months", cardsText(cards), price, monthsText(span, a.MonthlyMinDays))
	case ModeHourly:
		o.CardHours = float64(cards) * hoursPerDay * span
		o.Base = o.CardHours * o.Price
		o.How = fmt.Sprintf("%s × %s h/day × %s days × %s/card-hour", cardsText(cards), num(hoursPerDay), num(span), price)
	case ModeSpot:
		o.SpotInflation = a.SpotInflation
		o.CardHours = float64(cards) * hoursPerDay * span * a.SpotInflation
		o.Base = o.CardHours * o.Price
		o.How = fmt.Sprintf("%s × %s h/day × %s days × %s (capacity lost to interruptions) × %s/card-hour",
			cardsText(cards), num(hoursPerDay), num(span), num(a.SpotInflation), price)
	}
}

// priceJob prices a training or data job of fit.CardHours: on the fewest
// cards that hold it, more when the deadline needs them (at most max_gpus).
// Hourly and spot pay the card-hours plus the concurrency buffer; monthly
// rents the cards for the scenario's span, or the job's days rounded up.
func priceJob(o *Option, s *spec, fit *GPUFit, cards int, r *resolved) {
	a, price := r.a, money(r.currency, o.Price)
	ch, inflate := fit.CardHours, 1.0
	if o.Mode == ModeSpot {
		inflate = a.SpotInflation
		o.SpotInflation = inflate
	}
	o.GPUs = cards
	if limit := jobLimitHours(s, o.Mode); s.gpus == 0 && limit > 0 {
		o.GPUs = max(cards, int(math.Ceil(ch*inflate/limit-1e-9)))
		if s.maxGPUs > 0 && o.GPUs > s.maxGPUs {
			o.GPUs = max(cards, s.maxGPUs)
		}
	}
	o.WallHours = ch * inflate / float64(o.GPUs)
	if o.Mode == ModeMonthly {
		days := s.spanDays
		if !s.spanGiven {
			days = math.Max(1, math.Ceil(o.WallHours/24-1e-9))
		}
		o.Days = days
		o.Months = math.Max(days, a.MonthlyMinDays) / 30
		o.CardHours = float64(o.GPUs) * days * 24
		o.Base = float64(o.GPUs) * o.Price * o.Months
		o.How = fmt.Sprintf("%s × %s/card-month × %s months", cardsText(o.GPUs), price, monthsText(days, a.MonthlyMinDays))
		if o.WallHours > days*24+1e-9 {
			o.MeetsDeadline = false
		}
	} else {
		o.Buffer = s.buffer
		o.CardHours = ch * inflate * (1 + s.buffer)
		o.Base = o.CardHours * o.Price
		o.How = fmt.Sprintf("%s card-hours × (1 + %s buffer)", fixed(ch, 2), num(s.buffer))
		if o.Mode == ModeSpot {
			o.How += fmt.Sprintf(" × %s (interruptions)", num(inflate))
		}
		o.How += " × " + price + "/card-hour"
	}
	if s.deadlineDays > 0 && o.WallHours > s.deadlineDays*24+1e-9 {
		o.MeetsDeadline = false
	}
}

// jobLimitHours is the wall-clock a job may take in a mode: the deadline;
// for a monthly rental also no more than the rented span; without a deadline
// the span is the horizon. 0 means no limit.
func jobLimitHours(s *spec, mode string) float64 {
	limit := s.deadlineDays
	if mode == ModeMonthly && s.spanDays > 0 && (limit == 0 || s.spanDays < limit) {
		limit = s.spanDays
	}
	if limit == 0 {
		limit = s.spanDays
	}
	return limit * 24
}

// monthsText shows D / 30, or the minimum when a rental is shorter.
func monthsText(days, minDays float64) string {
	if days < minDays {
		return fmt.Sprintf("max(%s, %s)/30", num(days), num(minDays))
	}
	return fmt.Sprintf("%s/30", num(days))
}

// priceSource says where each of a row's prices came from.
func priceSource(pr priceRow, cur string) map[string]string {
	out := map[string]string{}
	for mode, p := range map[string]*float64{ModeHourly: pr.Hourly, ModeMonthly: pr.Monthly, ModeSpot: pr.Spot} {
		if p == nil {
			continue
		}
		c := strings.ToUpper(strings.TrimSpace(pr.Currency))
		if c == "" {
			c = cur
		}
		s := fmt.Sprintf("%s %s %s %s", strings.TrimSpace(pr.Provider), pr.GPUModel, mode, strings.TrimSpace(fixed(*p, 2)+" "+c))
		if pr.fx != 1 {
			s += fmt.Sprintf(" × %s %s/%s", num(pr.fx), cur, c)
		}
		if pr.AsOf != "" {
			s += ", as of " + pr.AsOf
		}
		s += " (" + pr.origin + ")"
		out[mode] = s
	}
	return out
}

// choose picks the plan: the cheapest option that respects the scenario's
// pins and meets its deadline; when none meets it, the cheapest that
// respects the pins, with a warning.
func choose(s *spec, opts []Option, cur string) (*Option, []string) {
	var pinned []Option
	for _, o := range opts {
		if (s.gpuModel == "" || o.GPUModel == s.gpuModel) && (s.pricing == "" || o.Mode == s.pricing) {
			pinned = append(pinned, o)
		}
	}
	if len(pinned) == 0 {
		return nil, nil
	}
	sortOptions(pinned)
	for _, o := range pinned {
		if o.MeetsDeadline {
			return &o, nil
		}
	}
	o := pinned[0]
	var why string
	switch {
	case s.work == "serving":
		why = fmt.Sprintf("%s cannot carry the traffic", cardsText(o.GPUs))
		if s.maxGPUs > 0 && s.gpus == 0 {
			why += fmt.Sprintf(" (max_gpus %d)", s.maxGPUs)
		}
	case s.deadlineDays > 0:
		why = fmt.Sprintf("no option finishes within the %s-day deadline", num(s.deadlineDays))
		if s.maxGPUs > 0 {
			why += fmt.Sprintf(" on at most %d cards", s.maxGPUs)
		}
		if s.gpus > 0 {
			why += fmt.Sprintf(" on the %d pinned cards", s.gpus)
		}
	default:
		why = fmt.Sprintf("the job does not fit in the %s-day span", num(s.spanDays))
	}
	return &o, []string{fmt.Sprintf("%s; the cheapest option is shown: %s, %s hours, %s", why, o.label(), hoursText(o.WallHours), money(cur, o.CostLow))}
}

// sortOptions orders options cheapest first; ties go to fewer cards, then a
// shorter run, then names, so the order never depends on map iteration.
func sortOptions(os []Option) {
	modeRank := map[string]int{ModeHourly: 0, ModeMonthly: 1, ModeSpot: 2}
	sort.SliceStable(os, func(i, j int) bool {
		a, b := os[i], os[j]
		switch {
		case a.CostLow != b.CostLow:
			return a.CostLow < b.CostLow
		case a.GPUs != b.GPUs:
			return a.GPUs < b.GPUs
		case a.WallHours != b.WallHours:
			return a.WallHours < b.WallHours
		case a.GPUModel != b.GPUModel:
			return a.GPUModel < b.GPUModel
		case a.Provider != b.Provider:
			return a.Provider < b.Provider
		}
		return modeRank[a.Mode] < modeRank[b.Mode]
	})
}

// rankGPUs fills each fit's best cost and cost per effective TFLOP-hour and
// ranks the GPU models that fit by both.
func rankGPUs(s *spec, fits []GPUFit, opts []Option, rows []priceRow, gpus []GPU) {
	for i := range fits {
		f := &fits[i]
		var best *Option
		for k := range opts {
			o := &opts[k]
			if o.GPUModel != f.GPUModel {
				continue
			}
			if best == nil || (o.MeetsDeadline && !best.MeetsDeadline) ||
				(o.MeetsDeadline == best.MeetsDeadline && o.CostLow < best.CostLow) {
				best = o
			}
		}
		if best != nil {
			c := best.CostLow
			f.BestCost, f.BestOption = &c, best.label()
		}
		for _, pr := range rows {
			if gpus[pr.gpu].Model != f.GPUModel {
				continue
			}
			var perHour float64
			var basis string
			switch {
			case pr.Hourly != nil:
				perHour, basis = *pr.Hourly*pr.fx, "hourly"
			case pr.Monthly != nil:
				perHour, basis = *pr.Monthly*pr.fx/730, "monthly / 730 h"
			default:
				continue
			}
			v := perHour / (f.TFLOPS * s.mfu)
			if f.CostPerTFLOPHour == nil || v < *f.CostPerTFLOPHour {
				f.CostPerTFLOPHour = &v
				f.TFLOPHourBasis = fmt.Sprintf("%s price of %s / (%s TFLOPS × %s MFU)", basis, strings.TrimSpace(pr.Provider), num(f.TFLOPS), num(s.mfu))
			}
		}
	}
	rank := func(key func(GPUFit) *float64, set func(*GPUFit, int)) {
		idx := make([]int, 0, len(fits))
		for i, f := range fits {
			if f.Fits && key(f) != nil {
				idx = append(idx, i)
			}
		}
		sort.SliceStable(idx, func(a, b int) bool { return *key(fits[idx[a]]) < *key(fits[idx[b]]) })
		for r, i := range idx {
			set(&fits[i], r+1)
		}
	}
	rank(func(f GPUFit) *float64 { return f.BestCost }, func(f *GPUFit, r int) { f.RankByCost = r })
	rank(func(f GPUFit) *float64 { return f.CostPerTFLOPHour }, func(f *GPUFit, r int) { f.RankByTFLOPHour = r })
	// Fitting models first, cheapest first; the rest in table order.
	sort.SliceStable(fits, func(a, b int) bool {
		fa, fb := fits[a], fits[b]
		if fa.Fits != fb.Fits {
			return fa.Fits
		}
		ra, rb := fa.RankByCost, fb.RankByCost
		if ra == 0 {
			ra = math.MaxInt
		}
		if rb == 0 {
			rb = math.MaxInt
		}
		return ra < rb
	})
}
