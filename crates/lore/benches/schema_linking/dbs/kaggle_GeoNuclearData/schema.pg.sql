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

COMMENT ON TABLE "nuclear_power_plants" IS 'This is a database about nuclear power plants around the world.';
COMMENT ON COLUMN "nuclear_power_plants"."Id" IS 'numeric id key';
COMMENT ON COLUMN "nuclear_power_plants"."Name" IS 'nuclear power plant name';
COMMENT ON COLUMN "nuclear_power_plants"."Latitude" IS 'latitude in decimal format';
COMMENT ON COLUMN "nuclear_power_plants"."Longitude" IS 'longitude in decimal format';
COMMENT ON COLUMN "nuclear_power_plants"."Country" IS 'the country of the nuclear_power_plants';
COMMENT ON COLUMN "nuclear_power_plants"."Status" IS 'the status of the nuclear_power_plants';
COMMENT ON COLUMN "nuclear_power_plants"."ReactorType" IS 'the reactortype of the nuclear_power_plants';
COMMENT ON COLUMN "nuclear_power_plants"."ReactorModel" IS 'nuclear reactor model';
COMMENT ON COLUMN "nuclear_power_plants"."ConstructionStartAt" IS 'date when nuclear power plant construction was started';
COMMENT ON COLUMN "nuclear_power_plants"."OperationalFrom" IS 'date when nuclear power plant became operational (also known as commercial operation date)';
COMMENT ON COLUMN "nuclear_power_plants"."OperationalTo" IS 'date when nuclear power plant was shutdown (also known as permanent shutdown date)';
COMMENT ON COLUMN "nuclear_power_plants"."Capacity" IS 'nuclear power plant capacity (design net capacity in MWe)';
COMMENT ON COLUMN "nuclear_power_plants"."LastUpdatedAt" IS 'date and time when information was last updated';
COMMENT ON COLUMN "nuclear_power_plants"."Source" IS 'source of the information';
