-- kaggle_USWildFires: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "Fires" ( -- This data publication contains a spatial database of wildfires that occurred in the United States from 1992 to 2015. It is the third update of a publication originally generated to support the national Fire Program Analysis (FPA) system. The wildfire records were acquired from the reporting systems of federal, state, and local fire organizations. The following core data elements were required for records to be included in this data publication: discovery date, final fire size, and a point location at least as precise as Public Land Survey System (PLSS) section (1-square mile grid). The data were transformed to conform, when possible, to the data standards of the National Wildfire Coordinating Group (NWCG). Basic error-checking was performed and redundant records were identified and removed, to the degree possible. The resulting product, referred to as the Fire Program Analysis fire-occurrence database (FPA FOD), includes 1.88 million geo-referenced wildfire records, representing a total of 140 million acres burned during the 24-year period.
  "FIRE_YEAR" NUMERIC, -- Calendar year in which the fire was discovered or confirmed to exist.
  "DISCOVERY_DATE" NUMERIC, -- Date on which the fire was discovered or confirmed to exist.
  "DISCOVERY_DOY" NUMERIC, -- Day of year on which the fire was discovered or confirmed to exist.
  "DISCOVERY_TIME" TEXT, -- Time of day that the fire was discovered or confirmed to exist.
  "STAT_CAUSE_CODE" NUMERIC, -- Code for the (statistical) cause of the fire.
  "STAT_CAUSE_DESCR" TEXT, -- Description of the (statistical) cause of the fire.
  "CONT_DATE" TEXT, -- Date on which the fire was declared contained or otherwise controlled
  "CONT_DOY" TEXT, -- Day of year on which the fire was declared contained or otherwise controlled.
  "CONT_TIME" TEXT, -- Time of day that the fire was declared contained or otherwise controlled
  "FIRE_SIZE" NUMERIC, -- Estimate of acres within the final perimeter of the fire.
  "FIRE_SIZE_CLASS" TEXT, -- Code for fire size based on the number of acres within the final fire perimeter expenditures.
  "LATITUDE" NUMERIC, -- Latitude (NAD83) for point location of the fire
  "LONGITUDE" NUMERIC, -- Longitude (NAD83) for point location of the fire
  "OWNER_CODE" NUMERIC, -- Code for primary owner or entity responsible for managing the land at the point of origin of the fire at the time of the incident.
  "OWNER_DESCR" TEXT, -- Name of primary owner or entity responsible for managing the land at the point of origin of the fire at the time of the incident.
  "STATE" TEXT, -- Two-letter code for the state in which the unit is located
  "COUNTY" TEXT, -- County, or equivalent, in which the fire burned (or originated), based on nominal designation in the fire report.
  "FIPS_CODE" TEXT, -- Three-digit code from the Federal Information Process Standards (FIPS) publication 6-4 for representation of counties and equivalent entities.
  "FIPS_NAME" TEXT -- County name from the FIPS publication 6-4 for representation of counties and equivalent entities.
);

