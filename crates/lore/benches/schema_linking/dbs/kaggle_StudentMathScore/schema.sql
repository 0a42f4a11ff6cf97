-- kaggle_StudentMathScore: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "FINREV_FED_17" (
  "state_code" NUMERIC, -- the state code of the FINREV_FED_17
  "idcensus" NUMERIC, -- the idcensus of the FINREV_FED_17
  "school_district" TEXT, -- the school district of the FINREV_FED_17
  "nces_id" TEXT, -- the nces id of the FINREV_FED_17
  "yr_data" NUMERIC, -- the year data of the FINREV_FED_17
  "t_fed_rev" NUMERIC, -- Total federal revenue through the state to each school district.
  "c14" NUMERIC, -- Federal revenue through the state- Title 1 (no child left behind act).
  "c25" NUMERIC -- Federal revenue through the state- Child Nutrition A
);

CREATE TABLE "NDECoreExcel_Math_Grade8" (
  "year" NUMERIC, -- the year of the NDECoreExcel_Math_Grade8
  "state" TEXT, -- the state of the NDECoreExcel_Math_Grade8
  "all_students" TEXT, -- the all students of the NDECoreExcel_Math_Grade8
  "average_scale_score" NUMERIC -- the average scale score of the NDECoreExcel_Math_Grade8
);

CREATE TABLE "FINREV_FED_KEY_17" (
  "State_Code" NUMERIC, -- the state code of the FINREV_FED_KEY_17
  "State" TEXT, -- the state of the FINREV_FED_KEY_17
  "#_Records" TEXT -- the number of records of the FINREV_FED_KEY_17
);

