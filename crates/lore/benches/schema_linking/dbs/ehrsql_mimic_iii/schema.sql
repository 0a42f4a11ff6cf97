-- ehrsql_mimic_iii: derived by build.py from glee4810/EHRSQL (dataset/ehrsql/mimic_iii), MIT-LCP/mimic-code (postgres_add_comments.sql); see README.md

CREATE TABLE "patients" ( -- Patients associated with an admission to the ICU.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Primary key. Identifies the patient.
  "gender" VARCHAR(5) NOT NULL, -- Gender.
  "dob" TIMESTAMP NOT NULL, -- Date of birth.
  "dod" TIMESTAMP, -- Date of death. Null if the patient was alive at least 90 days post hospital discharge.
  PRIMARY KEY ("row_id"),
  UNIQUE ("subject_id")
);

CREATE TABLE "admissions" ( -- Hospital admissions associated with an ICU stay.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Identifies the hospital stay.
  "admittime" TIMESTAMP NOT NULL, -- Time of admission to the hospital.
  "dischtime" TIMESTAMP, -- Time of discharge from the hospital.
  "admission_type" VARCHAR(50) NOT NULL, -- Type of admission, for example emergency or elective.
  "admission_location" VARCHAR(50) NOT NULL, -- Admission location.
  "discharge_location" VARCHAR(50), -- Discharge location
  "insurance" VARCHAR(255) NOT NULL, -- Insurance type.
  "language" VARCHAR(10), -- Language.
  "marital_status" VARCHAR(50), -- Marital status.
  "ethnicity" VARCHAR(200) NOT NULL, -- Ethnicity.
  "age" INTEGER NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("hadm_id"),
  FOREIGN KEY ("subject_id") REFERENCES "patients" ("subject_id")
);

CREATE TABLE "d_icd_diagnoses" ( -- Dictionary of the International Classification of Diseases, 9th Revision (Diagnoses).
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "icd9_code" VARCHAR(10) NOT NULL, -- ICD9 code - note that this is a fixed length character field, as whitespaces are important in uniquely identifying ICD-9 codes.
  "short_title" VARCHAR(50) NOT NULL, -- Short title associated with the code.
  "long_title" VARCHAR(255) NOT NULL, -- Long title associated with the code.
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd9_code")
);

CREATE TABLE "d_icd_procedures" ( -- Dictionary of the International Classification of Diseases, 9th Revision (Procedures).
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "icd9_code" VARCHAR(10) NOT NULL, -- ICD9 code - note that this is a fixed length character field, as whitespaces are important in uniquely identifying ICD-9 codes.
  "short_title" VARCHAR(50) NOT NULL, -- Short title associated with the code.
  "long_title" VARCHAR(255) NOT NULL, -- Long title associated with the code.
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd9_code")
);

CREATE TABLE "d_labitems" ( -- Dictionary of laboratory-related items.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "itemid" INTEGER NOT NULL, -- Foreign key. Identifies the charted item.
  "label" VARCHAR(200) NOT NULL, -- Label identifying the item.
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "d_items" ( -- Dictionary of non-laboratory-related charted items.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "itemid" INTEGER NOT NULL, -- Primary key. Identifies the charted item.
  "label" VARCHAR(200) NOT NULL, -- Label identifying the item.
  "linksto" VARCHAR(50) NOT NULL, -- Table which contains data for the given ITEMID.
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "diagnoses_icd" ( -- Diagnoses relating to a hospital admission coded using the ICD9 system.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icd9_code" VARCHAR(10) NOT NULL, -- ICD9 code for the diagnosis.
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd9_code") REFERENCES "d_icd_diagnoses" ("icd9_code")
);

CREATE TABLE "procedures_icd" ( -- Procedures relating to a hospital admission coded using the ICD9 system.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icd9_code" VARCHAR(10) NOT NULL, -- ICD9 code associated with the procedure.
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd9_code") REFERENCES "d_icd_procedures" ("icd9_code")
);

CREATE TABLE "labevents" ( -- Events relating to laboratory tests.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "itemid" INTEGER NOT NULL, -- Foreign key. Identifies the charted item.
  "charttime" TIMESTAMP, -- Time when the event occurred.
  "valuenum" DOUBLE PRECISION, -- Value of the event as a number.
  "valueuom" VARCHAR(20), -- Unit of measurement.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_labitems" ("itemid")
);

CREATE TABLE "prescriptions" ( -- Medicines prescribed.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "startdate" TIMESTAMP NOT NULL, -- Date when the prescription started.
  "enddate" TIMESTAMP, -- Date when the prescription ended.
  "drug" VARCHAR(100) NOT NULL, -- Name of the drug.
  "dose_val_rx" VARCHAR(120) NOT NULL, -- Dose of the drug prescribed.
  "dose_unit_rx" VARCHAR(120) NOT NULL, -- Unit of measurement associated with the dose.
  "route" VARCHAR(120) NOT NULL, -- Route of administration, for example intravenous or oral.
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

CREATE TABLE "chartevents" ( -- Events occurring on a patient chart.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icustay_id" INTEGER NOT NULL, -- Foreign key. Identifies the ICU stay.
  "itemid" INTEGER NOT NULL, -- Foreign key. Identifies the charted item.
  "charttime" TIMESTAMP NOT NULL, -- Time when the event occurred.
  "valuenum" DOUBLE PRECISION, -- Value of the event as a number.
  "valueuom" VARCHAR(50), -- Unit of measurement.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icustay_id") REFERENCES "icustays" ("icustay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "inputevents_cv" ( -- Events relating to fluid input for patients whose data was originally stored in the CareVue database.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icustay_id" INTEGER NOT NULL, -- Foreign key. Identifies the ICU stay.
  "charttime" TIMESTAMP NOT NULL, -- Time that the input was started or received.
  "itemid" INTEGER NOT NULL, -- Foreign key. Identifies the charted item.
  "amount" DOUBLE PRECISION, -- Amount of the item administered to the patient.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icustay_id") REFERENCES "icustays" ("icustay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "outputevents" ( -- Outputs recorded during the ICU stay.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icustay_id" INTEGER NOT NULL, -- Foreign key. Identifies the ICU stay.
  "charttime" TIMESTAMP NOT NULL, -- Time when the output was recorded/occurred.
  "itemid" INTEGER NOT NULL, -- Foreign key. Identifies the charted item.
  "value" DOUBLE PRECISION, -- Value of the event as a float.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icustay_id") REFERENCES "icustays" ("icustay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "microbiologyevents" ( -- Events relating to microbiology tests.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "charttime" TIMESTAMP NOT NULL, -- Time when the event occurred, if available.
  "spec_type_desc" VARCHAR(100), -- Description of the specimen.
  "org_name" VARCHAR(100), -- Name of the organism.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "icustays" ( -- List of ICU admissions.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icustay_id" INTEGER NOT NULL, -- Identifies the ICU stay.
  "first_careunit" VARCHAR(20) NOT NULL, -- First careunit associated with the ICU stay.
  "last_careunit" VARCHAR(20) NOT NULL, -- Last careunit associated with the ICU stay.
  "first_wardid" SMALLINT NOT NULL, -- Identifier for the first ward the patient was located in.
  "last_wardid" SMALLINT NOT NULL, -- Identifier for the last ward the patient is located in.
  "intime" TIMESTAMP NOT NULL, -- Time of admission to the ICU.
  "outtime" TIMESTAMP, -- Time of discharge from the ICU.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "transfers" ( -- Location of patients during their hospital stay.
  "row_id" INTEGER NOT NULL, -- Unique row identifier.
  "subject_id" INTEGER NOT NULL, -- Foreign key. Identifies the patient.
  "hadm_id" INTEGER NOT NULL, -- Foreign key. Identifies the hospital stay.
  "icustay_id" INTEGER, -- Foreign key. Identifies the ICU stay.
  "eventtype" VARCHAR(20) NOT NULL, -- Type of event, for example admission or transfer.
  "careunit" VARCHAR(20),
  "wardid" SMALLINT,
  "intime" TIMESTAMP NOT NULL, -- Time when the patient was transferred into the unit.
  "outtime" TIMESTAMP, -- Time when the patient was transferred out of the unit.
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

