SELECT
  ResourceId, ResourceName, ResourceType, RegionId, SubAccountId, ServiceName, SkuId, ChargeDescription,
  date_trunc('hour', ChargePeriodStart)                        AS ChargePeriodStart,
  date_trunc('hour', ChargePeriodStart) + INTERVAL '1' HOUR   AS ChargePeriodEnd,
  ChargeCategory, ChargeClass, ChargeFrequency, PricingCategory, CommitmentDiscountStatus,
  CommitmentDiscountId, BillingCurrency,
  to_json(CAST(MAP(ARRAY['team'], ARRAY[map_extract_value(Tags, 'team')]) AS JSON)) AS Tags,
  SUM(BilledCost)        AS BilledCost,
  SUM(EffectiveCost)     AS EffectiveCost,
  SUM(ListCost)          AS ListCost,
  SUM(ConsumedQuantity)  AS ConsumedQuantity
FROM focus
WHERE billing_period = '2024-09'
  AND ServiceCategory = 'Compute'
  AND ResourceId IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18
