-- kaggle_GreaterManchesterCrime: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "GreaterManchesterCrime" ( -- GreaterManchesterCrime is a geolocated listing of ALL crimes detected and investigated by the Greater Manchester Police Force in the United Kingdom, during August 2018.
  "CrimeID" TEXT, -- this is a randomly generated text string to uniquely indentify each crime record
  "CrimeTS" TIMESTAMP, -- the crime time stamp of the GreaterManchesterCrime
  "Location" TEXT, -- this is the text description of the area in Greater Manchester where the crime occured
  "LSOA" TEXT, -- Lower Layer Super Output Area (LSOA) is a GEOGRAPHIC AREA. Lower Layer Super Output Areas are a geographic hierarchy designed to improve the reporting of small area statistics in England and Wales
  "Type" TEXT, -- this is the type or class of crime
  "Outcome" TEXT, -- this is an indication of the outcome of the police investigation
  PRIMARY KEY ("CrimeID")
);

