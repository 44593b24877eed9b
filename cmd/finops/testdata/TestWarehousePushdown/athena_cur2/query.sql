SELECT
  line_item_resource_id                               AS "ResourceId",
  COALESCE(product_instance_type, map_extract_value(product, 'instance_type')) AS "x_InstanceType",
  product_region_code                                 AS "RegionId",
  line_item_usage_account_id                          AS "SubAccountId",
  date_trunc('hour', line_item_usage_start_date)      AS "ChargePeriodStart",
  date_trunc('hour', line_item_usage_start_date) + INTERVAL '1' HOUR AS "ChargePeriodEnd",
  CASE WHEN line_item_line_item_type IN ('DiscountedUsage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation') THEN 'Committed'
       WHEN pricing_term = 'Spot' THEN 'Dynamic' ELSE 'Standard' END AS "PricingCategory",
  'Usage'                                             AS "ChargeCategory",
  line_item_currency_code                             AS "BillingCurrency",
  to_json(CAST(MAP(ARRAY['team'], ARRAY[COALESCE(map_extract_value(resource_tags, 'user_team'),
                                                   map_extract_value(resource_tags, 'user:team'))]) AS JSON)) AS "Tags",
  SUM(line_item_unblended_cost)                       AS "BilledCost",
  SUM(CASE line_item_line_item_type
        WHEN 'DiscountedUsage'         THEN reservation_effective_cost
        WHEN 'SavingsPlanCoveredUsage' THEN savings_plan_savings_plan_effective_cost
        WHEN 'SavingsPlanNegation'     THEN 0
        ELSE line_item_unblended_cost END)            AS "EffectiveCost",
  SUM(line_item_usage_amount)                         AS "ConsumedQuantity"
FROM cur2
WHERE billing_period = '2026-01'
  AND line_item_product_code = 'AmazonEC2'
  AND line_item_line_item_type IN ('Usage', 'DiscountedUsage', 'SavingsPlanCoveredUsage', 'SavingsPlanNegation')
  AND regexp_matches(COALESCE(product_instance_type, map_extract_value(product, 'instance_type')),
                  '^(p[3-6]|g[4-6]|gr6|trn|inf|dl)')   -- GPU and accelerator families
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
