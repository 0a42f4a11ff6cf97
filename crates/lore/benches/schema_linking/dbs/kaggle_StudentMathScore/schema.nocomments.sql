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

