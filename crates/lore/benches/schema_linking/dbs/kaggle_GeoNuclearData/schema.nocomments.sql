-- kaggle_GeoNuclearData: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "nuclear_power_plants" (
  "Id" TEXT,
  "Name" TEXT,
  "Latitude" TEXT,
  "Longitude" TEXT,
  "Country" TEXT,
  "Status" TEXT,
  "ReactorType" TEXT,
  "ReactorModel" TEXT,
  "ConstructionStartAt" TEXT,
  "OperationalFrom" TEXT,
  "OperationalTo" TEXT,
  "Capacity" TEXT,
  "LastUpdatedAt" TEXT,
  "Source" TEXT
);

