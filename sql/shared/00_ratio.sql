-- ratio(num, den): a macro, not a relation
--
-- num ÷ den as a DOUBLE; NULL when den is 0 or NULL. Every rate in the reports goes through it,
-- so an empty denominator gives an empty cell, never an error or an infinity.

CREATE OR REPLACE TEMP MACRO ratio(num, den) AS
  CASE WHEN den IS NULL OR den = 0 THEN NULL ELSE num::DOUBLE / den END
