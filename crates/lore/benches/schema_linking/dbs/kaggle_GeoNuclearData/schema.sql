-- kaggle_GeoNuclearData: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "nuclear_power_plants" ( -- This is a database about nuclear power plants around the world.
  "Id" TEXT, -- numeric id key
  "Name" TEXT, -- nuclear power plant name
  "Latitude" TEXT, -- latitude in decimal format
  "Longitude" TEXT, -- longitude in decimal format
  "Country" TEXT, -- the country of the nuclear_power_plants
  "Status" TEXT, -- the status of the nuclear_power_plants
  "ReactorType" TEXT, -- the reactortype of the nuclear_power_plants
  "ReactorModel" TEXT, -- nuclear reactor model
  "ConstructionStartAt" TEXT, -- date when nuclear power plant construction was started
  "OperationalFrom" TEXT, -- date when nuclear power plant became operational (also known as commercial operation date)
  "OperationalTo" TEXT, -- date when nuclear power plant was shutdown (also known as permanent shutdown date)
  "Capacity" TEXT, -- nuclear power plant capacity (design net capacity in MWe)
  "LastUpdatedAt" TEXT, -- date and time when information was last updated
  "Source" TEXT -- source of the information
);

