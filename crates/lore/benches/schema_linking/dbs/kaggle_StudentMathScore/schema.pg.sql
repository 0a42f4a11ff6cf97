-- kaggle_StudentMathScore: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "FINREV_FED_17" (
  "state_code" NUMERIC,
  "idcensus" NUMERIC,
  "school_district" TEXT,
  "nces_id" TEXT,
  "yr_data" NUMERIC,
  "t_fed_rev" NUMERIC,
  "c14" NUMERIC,
  "c25" NUMERIC
);

CREATE TABLE "NDECoreExcel_Math_Grade8" (
  "year" NUMERIC,
  "state" TEXT,
  "all_students" TEXT,
  "average_scale_score" NUMERIC
);

CREATE TABLE "FINREV_FED_KEY_17" (
  "State_Code" NUMERIC,
  "State" TEXT,
  "#_Records" TEXT
);

COMMENT ON COLUMN "FINREV_FED_17"."state_code" IS 'the state code of the FINREV_FED_17';
COMMENT ON COLUMN "FINREV_FED_17"."idcensus" IS 'the idcensus of the FINREV_FED_17';
COMMENT ON COLUMN "FINREV_FED_17"."school_district" IS 'the school district of the FINREV_FED_17';
COMMENT ON COLUMN "FINREV_FED_17"."nces_id" IS 'the nces id of the FINREV_FED_17';
COMMENT ON COLUMN "FINREV_FED_17"."yr_data" IS 'the year data of the FINREV_FED_17';
COMMENT ON COLUMN "FINREV_FED_17"."t_fed_rev" IS 'Total federal revenue through the state to each school district.';
COMMENT ON COLUMN "FINREV_FED_17"."c14" IS 'Federal revenue through the state- Title 1 (no child left behind act).';
COMMENT ON COLUMN "FINREV_FED_17"."c25" IS 'Federal revenue through the state- Child Nutrition A';
COMMENT ON COLUMN "NDECoreExcel_Math_Grade8"."year" IS 'the year of the NDECoreExcel_Math_Grade8';
COMMENT ON COLUMN "NDECoreExcel_Math_Grade8"."state" IS 'the state of the NDECoreExcel_Math_Grade8';
COMMENT ON COLUMN "NDECoreExcel_Math_Grade8"."all_students" IS 'the all students of the NDECoreExcel_Math_Grade8';
COMMENT ON COLUMN "NDECoreExcel_Math_Grade8"."average_scale_score" IS 'the average scale score of the NDECoreExcel_Math_Grade8';
COMMENT ON COLUMN "FINREV_FED_KEY_17"."State_Code" IS 'the state code of the FINREV_FED_KEY_17';
COMMENT ON COLUMN "FINREV_FED_KEY_17"."State" IS 'the state of the FINREV_FED_KEY_17';
COMMENT ON COLUMN "FINREV_FED_KEY_17"."#_Records" IS 'the number of records of the FINREV_FED_KEY_17';
