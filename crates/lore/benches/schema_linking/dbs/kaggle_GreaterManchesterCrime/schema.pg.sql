-- kaggle_GreaterManchesterCrime: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "GreaterManchesterCrime" (
  "CrimeID" TEXT,
  "CrimeTS" TIMESTAMP,
  "Location" TEXT,
  "LSOA" TEXT,
  "Type" TEXT,
  "Outcome" TEXT,
  PRIMARY KEY ("CrimeID")
);

COMMENT ON TABLE "GreaterManchesterCrime" IS 'GreaterManchesterCrime is a geolocated listing of ALL crimes detected and investigated by the Greater Manchester Police Force in the United Kingdom, during August 2018.';
COMMENT ON COLUMN "GreaterManchesterCrime"."CrimeID" IS 'this is a randomly generated text string to uniquely indentify each crime record';
COMMENT ON COLUMN "GreaterManchesterCrime"."CrimeTS" IS 'the crime time stamp of the GreaterManchesterCrime';
COMMENT ON COLUMN "GreaterManchesterCrime"."Location" IS 'this is the text description of the area in Greater Manchester where the crime occured';
COMMENT ON COLUMN "GreaterManchesterCrime"."LSOA" IS 'Lower Layer Super Output Area (LSOA) is a GEOGRAPHIC AREA. Lower Layer Super Output Areas are a geographic hierarchy designed to improve the reporting of small area statistics in England and Wales';
COMMENT ON COLUMN "GreaterManchesterCrime"."Type" IS 'this is the type or class of crime';
COMMENT ON COLUMN "GreaterManchesterCrime"."Outcome" IS 'this is an indication of the outcome of the police investigation';
