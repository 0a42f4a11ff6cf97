-- ehrsql_mimic_iv: derived by build.py from glee4810/ehrsql-2024 (data/mimic_iv), MIT-LCP/mimic-website (content/en/docs/IV/modules); see README.md

CREATE TABLE "patients" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "gender" VARCHAR(5) NOT NULL,
  "dob" TIMESTAMP NOT NULL,
  "dod" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  UNIQUE ("subject_id")
);

CREATE TABLE "admissions" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "admittime" TIMESTAMP NOT NULL,
  "dischtime" TIMESTAMP,
  "admission_type" VARCHAR(50) NOT NULL,
  "admission_location" VARCHAR(50) NOT NULL,
  "discharge_location" VARCHAR(50),
  "insurance" VARCHAR(255) NOT NULL,
  "language" VARCHAR(10),
  "marital_status" VARCHAR(50),
  "age" INTEGER NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("hadm_id"),
  FOREIGN KEY ("subject_id") REFERENCES "patients" ("subject_id")
);

CREATE TABLE "d_icd_diagnoses" (
  "row_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd_code")
);

CREATE TABLE "d_icd_procedures" (
  "row_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd_code")
);

CREATE TABLE "d_labitems" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200),
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "d_items" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200) NOT NULL,
  "abbreviation" VARCHAR(200) NOT NULL,
  "linksto" VARCHAR(50) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "diagnoses_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd_code") REFERENCES "d_icd_diagnoses" ("icd_code")
);

CREATE TABLE "procedures_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd_code") REFERENCES "d_icd_procedures" ("icd_code")
);

CREATE TABLE "labevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(20),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_labitems" ("itemid")
);

CREATE TABLE "prescriptions" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "starttime" TIMESTAMP NOT NULL,
  "stoptime" TIMESTAMP,
  "drug" VARCHAR(255) NOT NULL,
  "dose_val_rx" VARCHAR(100) NOT NULL,
  "dose_unit_rx" VARCHAR(50) NOT NULL,
  "route" VARCHAR(50) NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "cost" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "event_type" VARCHAR(20) NOT NULL,
  "event_id" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("event_id") REFERENCES "diagnoses_icd" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "procedures_icd" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "labevents" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "prescriptions" ("row_id")
);

CREATE TABLE "chartevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(50),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "inputevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "starttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "totalamount" DOUBLE PRECISION,
  "totalamountuom" VARCHAR(50),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "outputevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "value" DOUBLE PRECISION,
  "valueuom" VARCHAR(50),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "microbiologyevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "spec_type_desc" VARCHAR(100),
  "test_name" VARCHAR(100),
  "org_name" VARCHAR(100),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "icustays" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "first_careunit" VARCHAR(20) NOT NULL,
  "last_careunit" VARCHAR(20) NOT NULL,
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  UNIQUE ("stay_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "transfers" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "transfer_id" INTEGER NOT NULL,
  "eventtype" VARCHAR(20) NOT NULL,
  "careunit" VARCHAR(20),
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

