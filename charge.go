package finops

// Charge categories (FOCUS ChargeCategory, lower case).
const (
	ChargeUsage      = "usage"
	ChargePurchase   = "purchase"
	ChargeTax        = "tax"
	ChargeCredit     = "credit"
	ChargeAdjustment = "adjustment"
)
