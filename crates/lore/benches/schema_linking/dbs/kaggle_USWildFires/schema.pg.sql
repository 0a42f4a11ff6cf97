-- kaggle_USWildFires: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "Fires" (
  "FIRE_YEAR" NUMERIC,
  "DISCOVERY_DATE" NUMERIC,
  "DISCOVERY_DOY" NUMERIC,
  "DISCOVERY_TIME" TEXT,
  "STAT_CAUSE_CODE" NUMERIC,
  "STAT_CAUSE_DESCR" TEXT,
  "CONT_DATE" TEXT,
  "CONT_DOY" TEXT,
  "CONT_TIME" TEXT,
  "FIRE_SIZE" NUMERIC,
  "FIRE_SIZE_CLASS" TEXT,
  "LATITUDE" NUMERIC,
  "LONGITUDE" NUMERIC,
  "OWNER_CODE" NUMERIC,
  "OWNER_DESCR" TEXT,
  "STATE" TEXT,
  "COUNTY" TEXT,
  "FIPS_CODE" TEXT,
  "FIPS_NAME" TEXT
);

COMMENT ON TABLE "Fires" IS 'This data publication contains a spatial database of wildfires that occurred in the United States from 1992 to 2015. It is the third update of a publication originally generated to support the national Fire Program Analysis (FPA) system. The wildfire records were acquired from the reporting systems of federal, state, and local fire organizations. The following core data elements were required for records to be included in this data publication: discovery date, final fire size, and a point location at least as precise as Public Land Survey System (PLSS) section (1-square mile grid). The data were transformed to conform, when possible, to the data standards of the National Wildfire Coordinating Group (NWCG). Basic error-checking was performed and redundant records were identified and removed, to the degree possible. The resulting product, referred to as the Fire Program Analysis fire-occurrence database (FPA FOD), includes 1.88 million geo-referenced wildfire records, representing a total of 140 million acres burned during the 24-year period.';
COMMENT ON COLUMN "Fires"."FIRE_YEAR" IS 'Calendar year in which the fire was discovered or confirmed to exist.';
COMMENT ON COLUMN "Fires"."DISCOVERY_DATE" IS 'Date on which the fire was discovered or confirmed to exist.';
COMMENT ON COLUMN "Fires"."DISCOVERY_DOY" IS 'Day of year on which the fire was discovered or confirmed to exist.';
COMMENT ON COLUMN "Fires"."DISCOVERY_TIME" IS 'Time of day that the fire was discovered or confirmed to exist.';
COMMENT ON COLUMN "Fires"."STAT_CAUSE_CODE" IS 'Code for the (statistical) cause of the fire.';
COMMENT ON COLUMN "Fires"."STAT_CAUSE_DESCR" IS 'Description of the (statistical) cause of the fire.';
COMMENT ON COLUMN "Fires"."CONT_DATE" IS 'Date on which the fire was declared contained or otherwise controlled';
COMMENT ON COLUMN "Fires"."CONT_DOY" IS 'Day of year on which the fire was declared contained or otherwise controlled.';
COMMENT ON COLUMN "Fires"."CONT_TIME" IS 'Time of day that the fire was declared contained or otherwise controlled';
COMMENT ON COLUMN "Fires"."FIRE_SIZE" IS 'Estimate of acres within the final perimeter of the fire.';
COMMENT ON COLUMN "Fires"."FIRE_SIZE_CLASS" IS 'Code for fire size based on the number of acres within the final fire perimeter expenditures.';
COMMENT ON COLUMN "Fires"."LATITUDE" IS 'Latitude (NAD83) for point location of the fire';
COMMENT ON COLUMN "Fires"."LONGITUDE" IS 'Longitude (NAD83) for point location of the fire';
COMMENT ON COLUMN "Fires"."OWNER_CODE" IS 'Code for primary owner or entity responsible for managing the land at the point of origin of the fire at the time of the incident.';
COMMENT ON COLUMN "Fires"."OWNER_DESCR" IS 'Name of primary owner or entity responsible for managing the land at the point of origin of the fire at the time of the incident.';
COMMENT ON COLUMN "Fires"."STATE" IS 'Two-letter code for the state in which the unit is located';
COMMENT ON COLUMN "Fires"."COUNTY" IS 'County, or equivalent, in which the fire burned (or originated), based on nominal designation in the fire report.';
COMMENT ON COLUMN "Fires"."FIPS_CODE" IS 'Three-digit code from the Federal Information Process Standards (FIPS) publication 6-4 for representation of counties and equivalent entities.';
COMMENT ON COLUMN "Fires"."FIPS_NAME" IS 'County name from the FIPS publication 6-4 for representation of counties and equivalent entities.';
